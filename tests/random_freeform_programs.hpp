// Random free-form programs: one loop over i whose body draws statements
// with data-dependent branches, gathers and scatters through index tensors,
// CSR loops, guarded windows, local tensors, helper functions and carried
// dependences (used by the random schedule and auto-schedule tests).
#pragma once
#include <random>
#include <string>

namespace teml::testing {

// Statements of the body of `for i in range(N)` (N = 8; index tensors hold 0..7).
inline const char* const kFreeformStatements[] = {
    // a gather, element by element
    "        for j in range(M):\n"
    "            y[i, j] = x[idx[i], j] * 2\n",
    // a local tensor accumulated over a loop, then stored
    "        t = teml.zeros((N,), \"float64\")\n"
    "        for k in range(3):\n"
    "            t[:] += abs(x[idx[(i + k) % N]] - x[i])\n"
    "        y[i, :N] += t\n",
    // a CSR loop: the range comes from data
    "        for p in range(ptr[i], ptr[i + 1]):\n"
    "            y[i, 1:] += x[idx[p]] * 0.5\n",
    // a branch on data
    "        for j in range(M):\n"
    "            if x[i, j] > 0:\n"
    "                y[i, j] = helper(x[i, j], x[j, i])\n"
    "            else:\n"
    "                y[i, j] = teml.exp(x[i, j]) if x[j, i] < 0.5 else -x[i, j]\n",
    // a window guarded by a condition
    "        for k in range(-2, 3):\n"
    "            if 0 <= i + k < N:\n"
    "                y[i, 0] += x[i + k, 1]\n",
    // a scatter: reductions into places data decide
    "        for j in range(M):\n"
    "            y[idx[j], i % M] += x[i, j]\n",
    // a dependence carried along i
    "        if i + 1 < N:\n"
    "            for j in range(M):\n"
    "                y[i + 1, j] = y[i, j] + x[i, j]\n",
    // integer results
    "        for j in range(M):\n"
    "            n[i, j] = int(x[i, j] * 10) % 7 + idx[j]\n",
};

inline std::string randomFreeformProgram(std::mt19937& rng) {
  std::string src =
      "import teml\n\nN = 8\nM = 5\n\n"
      "def helper(a, b):\n    return a * b + 1\n\n"
      "@teml.transform\n"
      "def f(x: teml.Var[(N, N), \"float64\"], idx: teml.Var[(N,), \"int32\"], ptr: teml.Var[(N + 1,), \"int32\"],\n"
      "      y: teml.Var[(N + 1, N + 1), \"float64\", \"output\"], n: teml.Var[(N, M), \"int64\", \"output\"]):\n"
      "    #! label: Li\n"
      "    for i in range(N):\n";
  int count = 1 + static_cast<int>(rng() % 3);
  for (int k = 0; k < count; ++k) src += kFreeformStatements[rng() % (sizeof(kFreeformStatements) / sizeof(kFreeformStatements[0]))];
  return src;
}

}  // namespace teml::testing
