// Random free-form programs for the gradient oracle: the statements of
// tests/random_freeform_programs.hpp and statements that stress what the
// backward pass must get right: values overwritten after they are read
// (`=`, `+=`, `*=`, a running max), locals written in branches inside
// inlined helpers, in-place updates inside loops whose trip counts data
// decide (a CSR row), and a large local whose tape crosses the size where
// the tape cost model switches from cache to memory. The sizes come in two
// sets, on both sides of the tape, private-accumulator and vector-width
// thresholds (tests/gradient_test.cpp).
#pragma once
#include <random>
#include <string>

#include "random_freeform_programs.hpp"

namespace teml::testing {

inline const char* const kGradientStatements[] = {
    // a value read, then overwritten by a store
    "        for j in range(M):\n"
    "            w[i, j] = x[i, j] * 2\n"
    "            y[i, j] += w[i, j] * w[i, j]\n"
    "            w[i, j] = teml.sin(w[i, j]) + x[j, i]\n"
    "            y[i, j + 1] += w[i, j]\n",
    // read, then overwritten by +=
    "        for j in range(M):\n"
    "            y[i, j] = w[i, j] * x[i, j]\n"
    "            w[i, j] += x[j, i] * 0.5\n",
    // read, then overwritten by *=
    "        for j in range(M):\n"
    "            y[i, j] += teml.tanh(w[i, j] + x[i, j])\n"
    "            w[i, j] *= x[i, j]\n",
    // read, then overwritten by a running maximum
    "        for j in range(M):\n"
    "            y[i, j] += w[i, j] * x[j, i]\n"
    "            w[i, j] = max(w[i, j], x[i, j])\n",
    // a local written in branches inside an inlined helper
    "        for j in range(M):\n"
    "            y[i, j] += piecewise(x[i, j], x[j, i]) * piecewise(x[j, i], 0.5)\n",
    // in place inside a CSR row: v[p] overwritten after a maximum read it
    "        top = teml.full((), -float(\"inf\"), \"float64\")\n"
    "        for p in range(ptr[i], ptr[i + 1]):\n"
    "            v[p] = x[idx[p], 0] * x[i, 1]\n"
    "            top[()] = max(top[()], v[p])\n"
    "        for p in range(ptr[i], ptr[i + 1]):\n"
    "            v[p] = teml.exp(v[p] - top[()])\n"
    "            y[i, 2] += v[p] * x[i, 3]\n",
    // a large local: its tape holds N versions of K elements
    "        big = teml.zeros((K,), \"float64\")\n"
    "        for k in range(K):\n"
    "            big[k] = teml.sin(x[i, k % N] * (k % 7 + 1))\n"
    "        for k in range(K):\n"
    "            y[i, k % M] += big[k] * big[(k + 1) % K] * 0.01\n",
};

// A program of 1 to 4 statements drawn from both lists, for sizes N and M
// (M < N, N a multiple of 8 apart from the row of a CSR: index tensors hold
// 0..N-1; K, a large local's length, grows with N).
inline std::string randomGradientProgram(std::mt19937& rng, int n, int m) {
  std::string src = "import teml\n\nN = " + std::to_string(n) + "\nM = " + std::to_string(m) + "\nK = " +
                    std::to_string(32 * n) +
                    "\n\n"
                    "def helper(a, b):\n    return a * b + 1\n\n"
                    "def piecewise(a, b):\n"
                    "    d = teml.empty((), \"float64\")\n"
                    "    if a > b:\n        d[()] = a * b\n"
                    "    elif a < -b:\n        d[()] = teml.exp(a)\n"
                    "    else:\n        d[()] = a - b * b\n"
                    "    return d[()]\n\n"
                    "@teml.transform\n"
                    "def f(x: teml.Var[(N, N), \"float64\"], idx: teml.Var[(N,), \"int32\"], ptr: teml.Var[(N + 1,), \"int32\"],\n"
                    "      y: teml.Var[(N + 1, N + 1), \"float64\", \"output\"], n: teml.Var[(N, M), \"int64\", \"output\"]):\n"
                    "    w = teml.empty((N, N), \"float64\")\n"
                    "    for i in range(N):\n"
                    "        for j in range(N):\n"
                    "            w[i, j] = x[j, i] * x[i, j]\n"
                    "    v = teml.zeros((N,), \"float64\")\n"
                    "    #! label: Li\n"
                    "    for i in range(N):\n";
  const size_t common = sizeof(kFreeformStatements) / sizeof(kFreeformStatements[0]);
  const size_t ours = sizeof(kGradientStatements) / sizeof(kGradientStatements[0]);
  int count = 1 + static_cast<int>(rng() % 4);
  for (int k = 0; k < count; ++k) {
    size_t pick = rng() % (common + 2 * ours);  // the new statements twice as likely
    src += pick < common ? kFreeformStatements[pick] : kGradientStatements[(pick - common) % ours];
  }
  return src;
}

}  // namespace teml::testing
