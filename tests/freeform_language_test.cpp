// The free-form language (FreeTensor's, INTERFACES.md "Free-form programs"):
// what each construct computes (interpreter and compiled code agree on
// random inputs), partial evaluation, views, run-time index checks and the
// diagnostics the contract lists.
#include <cmath>

#include "frontend/freeform/freeform.hpp"
#include "pipeline/freeform_schedule.hpp"
#include "ir/printer.hpp"
#include "test_util.hpp"

using namespace teml;
using namespace teml::testing;

namespace {

freeform::FreeformProgram ff(const std::string& source, std::map<std::string, int64_t> sizes = {},
                             bool checkIndices = true) {
  freeform::FreeformOptions o = hostFreeformOptions();
  o.sizes = std::move(sizes);
  o.checkIndices = checkIndices;
  return pipeline::compileFreeform(source, o);
}

Failure ffError(const std::string& source, std::map<std::string, int64_t> sizes = {}) {
  return failureOf([&] { ff(source, sizes); });
}

void expectRefused(const std::string& source, int line, int col, const std::string& fragment,
                   std::map<std::string, int64_t> sizes = {}) {
  auto f = ffError(source, sizes);
  ASSERT_TRUE(f.failed) << source;
  EXPECT_EQ(f.loc.line, line) << f.message;
  if (col) {
    EXPECT_EQ(f.loc.col, col) << f.message;
  }
  EXPECT_NE(f.message.find(fragment), std::string::npos) << f.message;
}

std::string irOf(const freeform::FreeformProgram& p) { return ir::toString(p.program, true); }

const char* kMeshGather = R"(import teml

@teml.transform
def mesh_gather(x: teml.Var[(F, C), "float32"],
                adj: teml.Var[(F, 3), "int32"],
                y: teml.Var[(F, C), "float32", "output"]):
    #! label: Li
    for i in range(F):
        s = teml.zeros((C,), "float32")
        for p in range(3):
            s[:] += abs(x[adj[i, p]] - x[i])
        y[i] = s
)";

}  // namespace

TEST(FreeformLanguage, TheContractsExampleGathersThroughAnIndexTensor) {
  auto p = ff(kMeshGather, {{"F", 12}, {"C", 5}});
  ASSERT_EQ(p.program.tensors.size(), 3u);
  EXPECT_EQ(p.program.tensors[1].dtype, ir::DType::I32);
  EXPECT_EQ(p.access.at("y"), freeform::Access::Output);
  expectJitMatchesInterpreter(p.program);
  // One element by hand.
  auto in = randomInputs(p.program, 3);
  auto out = runJit(p.program, in);
  auto& x = in.at("x");
  auto& adj = in.at("adj");
  double want = 0;
  for (int q = 0; q < 3; ++q) want += std::fabs(x.get(adj.getInt(2 * 3 + q) * 5 + 4) - x.get(2 * 5 + 4));
  EXPECT_NEAR(out.at("y").get(2 * 5 + 4), want, 1e-5);
}

TEST(FreeformLanguage, ArithmeticFollowsPython) {
  auto p = ff(R"(import teml
@teml.transform
def f(a: teml.Var[(4,), "int64", "output"], b: teml.Var[(6,), "float64", "output"]):
    a[0] = -7 // 2
    a[1] = -7 % 3
    a[2] = 2 ** 10 + (3 if 1 < 2 < 3 else 4)
    for i in range(1):
        a[3] = (i - 7) // 2 + (i - 7) % 3 * 100
        b[0] = (i + 3) / 2
        b[1] = max(i, 2.5, -1)
        b[2] = 1.0 if (i == 0 and not i > 0) or False else 0.0
        b[3] = abs(i - 4.5) ** 2
        b[4] = float(i + 7) // 2
        b[5] = min(float("inf"), 3)
)");
  auto out = runJit(p.program, randomInputs(p.program));
  auto interp = runInterpreter(p.program, randomInputs(p.program));
  std::vector<int64_t> a = {-4, 2, 1027, -4 + 2 * 100};
  std::vector<double> b = {1.5, 2.5, 1.0, 20.25, 3.0, 3.0};
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(out.at("a").getInt(k), a[k]) << k;
    EXPECT_EQ(interp.at("a").getInt(k), a[k]) << k;
  }
  for (int k = 0; k < 6; ++k) {
    EXPECT_DOUBLE_EQ(out.at("b").get(k), b[k]) << k;
    EXPECT_DOUBLE_EQ(interp.at("b").get(k), b[k]) << k;
  }
}

TEST(FreeformLanguage, PythonNumbersTakeTheTensorsType) {
  auto p = ff(R"(import teml
@teml.transform
def f(e: teml.Var[(8,), "float32"], y: teml.Var[(8,), "float32", "output"], z: teml.Var[(8,), "float64", "output"]):
    for j in range(8):
        y[j] = 0.1 * e[j]
        z[j] = j / (8 - 1)
)");
  std::string ir = irOf(p);
  EXPECT_EQ(ir.find("double(e"), std::string::npos) << ir;  // no widening of e
  expectJitMatchesInterpreter(p.program);
}

// FreeTensor's dimension-free programming (its Figure 6(b)): recursion ends
// by partial evaluation on .ndim, leaving plain loop nests (its Figure 9).
TEST(FreeformLanguage, DimensionFreeRecursionBecomesLoopNests) {
  auto p = ff(R"(import teml

def add(a, b, c):
    if a.ndim == 0:
        c[()] = a + b
    else:
        for i in range(a.shape(0)):
            add(a[i], b[i], c[i])

@teml.transform
def f(a: teml.Var[(3, 4, 5), "float64"], b: teml.Var[(3, 4, 5), "float64"],
      c: teml.Var[(3, 4, 5), "float64", "output"]):
    add(a, b, c)
)");
  std::string ir = irOf(p);
  EXPECT_EQ(ir.find("if"), std::string::npos) << ir;
  EXPECT_NE(ir.find("c[i][i_2][i_3] = a[i][i_2][i_3] + b[i][i_2][i_3]"), std::string::npos) << ir;
  expectJitMatchesInterpreter(p.program);
}

TEST(FreeformLanguage, FunctionsReturnTensorsAndNumbers) {
  auto p = ff(R"(import teml
SCALE = 2

def twice(v):
    t = teml.empty((v.shape(0),), "float64")
    t[:] = v * SCALE
    return t

def last(n):
    return n - 1

@teml.transform
def f(x: teml.Var[(4, 6), "float64"], y: teml.Var[(4, 6), "float64", "output"]):
    for i in range(4):
        y[i] = twice(x[i])
        y[i, last(6)] = 0
)");
  auto in = randomInputs(p.program);
  auto out = runJit(p.program, in);
  EXPECT_DOUBLE_EQ(out.at("y").get(1 * 6 + 2), 2 * in.at("x").get(1 * 6 + 2));
  EXPECT_DOUBLE_EQ(out.at("y").get(1 * 6 + 5), 0);
  expectJitMatchesInterpreter(p.program);
}

TEST(FreeformLanguage, ViewsSlicesAndBroadcasting) {
  auto p = ff(R"(import teml
@teml.transform
def f(x: teml.Var[(5, 4), "float64"], y: teml.Var[(5, 4), "float64", "output"]):
    for i in range(5):
        y[i, :] = 1
        y[i, 1:3] = x[i, :2]
        row = y[i]
        row[-1] += x[i, 0]
    y[:, 0] += x[:, 3]
)");
  auto in = randomInputs(p.program);
  auto out = runJit(p.program, in);
  auto& x = in.at("x");
  auto& y = out.at("y");
  for (int i = 0; i < 5; ++i) {
    EXPECT_DOUBLE_EQ(y.get(i * 4 + 0), 1 + x.get(i * 4 + 3));
    EXPECT_DOUBLE_EQ(y.get(i * 4 + 1), x.get(i * 4 + 0));
    EXPECT_DOUBLE_EQ(y.get(i * 4 + 2), x.get(i * 4 + 1));
    EXPECT_DOUBLE_EQ(y.get(i * 4 + 3), 1 + x.get(i * 4 + 0));
  }
  expectJitMatchesInterpreter(p.program);
}

TEST(FreeformLanguage, ARightSideReadingOtherElementsOfTheTargetIsEvaluatedFirst) {
  auto p = ff(R"(import teml
@teml.transform
def f(x: teml.Var[(6,), "float64", "inout"]):
    x[1:] = x[:5]
)");
  auto in = randomInputs(p.program);
  in.at("x").fillRandom(5);
  auto out = runJit(p.program, in);
  for (int k = 1; k < 6; ++k) EXPECT_DOUBLE_EQ(out.at("x").get(k), in.at("x").get(k - 1));
}

TEST(FreeformLanguage, NamesAssignedInABlockAreTensorsLocalToIt) {
  auto p = ff(R"(import teml
@teml.transform
def f(a: teml.Var[(8,), "float32"], b: teml.Var[(8,), "float32"], y: teml.Var[(8,), "float32", "output"]):
    for i in range(8):
        t = a[i] * b[i]
        t += 1
        y[i] = t
)");
  std::string ir = irOf(p);
  EXPECT_NE(ir.find("var t : float[]"), std::string::npos) << ir;
  expectJitMatchesInterpreter(p.program);
}

TEST(FreeformLanguage, CsrLoopBoundsComeFromData) {
  auto p = ff(R"(import teml
@teml.transform
def spmv(ptr: teml.Var[(N + 1,), "int32"], col: teml.Var[(E,), "int32"], val: teml.Var[(E,), "float64"],
         x: teml.Var[(N,), "float64"], y: teml.Var[(N,), "float64", "output"]):
    for i in range(N):
        for k in range(ptr[i], ptr[i + 1]):
            y[i] += val[k] * x[col[k]]
)",
              {{"N", 8}, {"E", 8}});
  auto in = randomInputs(p.program);
  for (int k = 0; k <= 8; ++k) in.at("ptr").setInt(k, k);  // one entry per row
  auto want = runInterpreter(p.program, in);
  auto got = runJit(p.program, in);
  for (int i = 0; i < 8; ++i) {
    EXPECT_DOUBLE_EQ(got.at("y").get(i), in.at("val").get(i) * in.at("x").get(in.at("col").getInt(i)));
    EXPECT_DOUBLE_EQ(want.at("y").get(i), got.at("y").get(i));
  }
}

TEST(FreeformLanguage, LoopsCountDownWithANegativeStep) {
  auto p = ff(R"(import teml
@teml.transform
def f(x: teml.Var[(6,), "float64"], y: teml.Var[(6,), "float64", "output"]):
    for i in range(5, -1, -1):
        y[5 - i] = x[i]
)");
  auto in = randomInputs(p.program);
  auto out = runJit(p.program, in);
  for (int k = 0; k < 6; ++k) EXPECT_DOUBLE_EQ(out.at("y").get(k), in.at("x").get(5 - k));
}

TEST(FreeformLanguage, IndicesFromDataAreCheckedAtRunTime) {
  auto p = ff(kMeshGather, {{"F", 12}, {"C", 5}});
  auto in = randomInputs(p.program);
  in.at("adj").setInt(7, 12);  // row 2, neighbour 1 points past the last face
  for (bool jit : {false, true}) {
    auto f = failureOf([&] { jit ? runJit(p.program, in) : runInterpreter(p.program, in); });
    ASSERT_TRUE(f.failed) << jit;
    EXPECT_EQ(f.loc.line, 11);
    EXPECT_EQ(f.loc.col, 27);
    EXPECT_EQ(f.message, "index 12 out of range [0, 12) for dimension 0 of 'x'");
  }
  // Unchecked: no check is generated at all.
  EXPECT_EQ(irOf(ff(kMeshGather, {{"F", 12}, {"C", 5}}, false)).find("assert"), std::string::npos);
  // Indices the compiler can prove need no check.
  EXPECT_EQ(irOf(p).find("dimension 1"), std::string::npos);
}

TEST(FreeformLanguage, AnIndexShownToLeaveItsTensorIsACompileError) {
  expectRefused(R"(import teml
@teml.transform
def f(x: teml.Var[(N,), "float64"], y: teml.Var[(N,), "float64", "output"]):
    for i in range(N):
        y[i] = x[i + 1]
)",
                5, 18, "index i + 1 reaches 10, out of range [0, 10) for dimension 0 of 'x'", {{"N", 10}});
}

TEST(FreeformLanguage, IndicesOfLoopsWhoseBoundsMoveAreProvenFromTheLoopsAround) {
  // j < N - i <= N: no check, so nothing stands between the two loops.
  auto triangle = ff(R"(import teml
@teml.transform
def f(x: teml.Var[(N, N), "float64"], y: teml.Var[(N, N), "float64", "output"]):
    for i in range(N):
        for j in range(N - i):
            y[i, j] = x[i, j] * 2
)",
                     {{"N", 7}});
  EXPECT_EQ(irOf(triangle).find("assert"), std::string::npos);
  expectJitMatchesInterpreter(triangle.program);
  // A window past the row's end on the last i only: its range, from the least
  // begin to the greatest end, leaves x, but not on every iteration: checked
  // at run time, where it fails on the last i.
  auto window = ff(R"(import teml
@teml.transform
def f(x: teml.Var[(N,), "float64"], y: teml.Var[(N,), "float64", "output"]):
    for i in range(N):
        for j in range(i, i + 2):
            y[i] += x[j]
)",
                   {{"N", 7}});
  auto f = failureOf([&] { runJit(window.program, randomInputs(window.program)); });
  ASSERT_TRUE(f.failed);
  EXPECT_EQ(f.message, "index 7 out of range [0, 7) for dimension 0 of 'x'");
}

TEST(FreeformLanguage, AGuardedIndexIsCheckedWhereItRuns) {
  auto p = ff(R"(import teml
@teml.transform
def f(x: teml.Var[(N,), "float64"], y: teml.Var[(N,), "float64", "output"]):
    for i in range(N):
        if i + 1 < N:
            y[i] = x[i + 1]
)",
              {{"N", 10}});
  expectJitMatchesInterpreter(p.program);
}

TEST(FreeformLanguage, AssertionsStopTheRun) {
  auto p = ff(R"(import teml
@teml.transform
def f(x: teml.Var[(4,), "float64"], y: teml.Var[(4,), "float64", "output"]):
    for i in range(4):
        assert x[i] < 2
        y[i] = x[i]
)");
  auto in = randomInputs(p.program);
  expectJitMatchesInterpreter(p.program);  // random values lie in [-1, 1)
  in.at("x").set(2, 5.0);
  auto f = failureOf([&] { runJit(p.program, in); });
  ASSERT_TRUE(f.failed);
  EXPECT_EQ(f.loc.line, 5);
  EXPECT_EQ(f.message, "assertion failed");
}

TEST(FreeformLanguage, ConstructsOutsideTheSubsetAreRefusedWhereTheyAre) {
  const std::string head = "import teml\n@teml.transform\ndef f(x: teml.Var[(4,), \"float64\", \"output\"]):\n";
  expectRefused(head + "    while True:\n        pass\n", 4, 5, "not supported in teml programs: 'while' loops");
  expectRefused(head + "    y = [i for i in range(3)]\n", 4, 12, "not supported in teml programs: list comprehensions");
  expectRefused(head + "    g = lambda a: a\n", 4, 9, "not supported in teml programs: lambda");
  // Another module is Python's: an error where a transform uses it.
  expectRefused("import numpy\n" + head + "    x[0] = numpy.exp(1.0)\n", 5, 12,
                "'numpy' is the Python module 'numpy' (imported at line 1)");
  expectRefused(head + "    for i in [1, 2]:\n        pass\n", 4, 14, "loops over anything but range");
  expectRefused(head + "    x[0] = y\n", 4, 12, "unknown name 'y'");
  expectRefused(head + "    x[0, 1] = 0\n", 4, 5, "too many indices");
  expectRefused(head + "    x[:] = teml.zeros((3,), \"float64\")\n", 4, 5,
                "cannot assign a value of shape (3,) to 'x' of shape (4,)");
  expectRefused("import teml\n@teml.transform\ndef f(x: teml.Var[(4,), \"int32\", \"output\"]):\n    x[0] = 0.5\n", 4, 5,
                "assigning a float value to int32 tensor 'x' needs int(...)");
  expectRefused(head + "    x[0] = 1 +\n", 4, 15, "expected an expression");
  expectRefused("import teml\n@teml.transform\ndef f(x: teml.Var[(4,), \"float64\"]):\n    x[0] = 1\n", 4, 5,
                "'x' is an input of the entry function; declare it \"inout\" to write it");
}

TEST(FreeformLanguage, SizesComeFromSetOrFromInputs) {
  expectRefused(kMeshGather, 4, 30, "size 'F' of 'x' is not bound");
  freeform::FreeformOptions o = hostFreeformOptions();
  o.inputShapes = {{"x", {10, 4}}, {"adj", {10, 3}}};
  auto p = pipeline::compileFreeform(kMeshGather, o);
  EXPECT_EQ(p.program.tensors[2].shape, (std::vector<int64_t>{10, 4}));
  o.inputShapes["adj"] = {9, 3};
  EXPECT_THROW(pipeline::compileFreeform(kMeshGather, o), UsageError);
}

TEST(FreeformSchedules, PrimitivesNameLoopsByLabelOrHandle) {
  auto p = ff(std::string(kMeshGather) + R"(
@teml.schedule(mesh_gather)
def schedule(s):
    outer, inner = s.split("Li", 4)
    s.parallelize(outer)
)",
              {{"F", 13}, {"C", 5}});
  std::string ir = irOf(p);
  EXPECT_NE(ir.find("parallel  @Li.o"), std::string::npos) << ir;
  expectJitMatchesInterpreter(p.program);
}

TEST(FreeformSchedules, AnIllegalPrimitiveIsRefusedAtItsCall) {
  const char* prefix = R"(import teml
@teml.transform
def prefix(x: teml.Var[(N,), "float64", "inout"]):
    #! label: L
    for i in range(1, N):
        x[i] += x[i - 1]

@teml.schedule(prefix)
def s(s):
    s.parallelize("L")
)";
  expectRefused(prefix, 10, 5, "different iterations may read x[i - 1] while another writes x[i]", {{"N", 8}});
  expectRefused(R"(import teml
@teml.transform
def f(x: teml.Var[(4,), "float64", "output"]):
    for i in range(4):
        x[i] = 1

@teml.schedule(f)
def s(s):
    s.split("Lx", 2)
)",
                9, 5, "there is no loop 'Lx' (loops: L4)");
  // A nest unrolled into hundreds of loops: the first twelve named (seed 5173).
  expectRefused(R"(import teml
@teml.transform
def f(x: teml.Var[(40, 4), "float64", "output"]):
    #! label: Li
    for i in range(40):
        #! label: Lj
        for j in range(4):
            x[i, j] = 1

@teml.schedule(f)
def s(s):
    s.unroll("Li")
    s.split("Li", 2)
)",
                13, 5, "there is no loop 'Li' (loops: Lj, Lj#2, Lj#3, Lj#4, Lj#5, Lj#6, Lj#7, Lj#8, Lj#9, Lj#10, Lj#11, Lj#12 and 28 more)");
  // A scatter that a later iteration's store may overwrite: fission would
  // run every store before every scatter.
  expectRefused(R"(import teml
@teml.transform
def f(x: teml.Var[(8, 8), "float64"], idx: teml.Var[(8,), "int32"], y: teml.Var[(9, 9), "float64", "output"]):
    #! label: Li
    for i in range(8):
        for j in range(5):
            y[i, j] = x[i, j]
        for j in range(5):
            y[idx[j], 0] += x[i, j]

@teml.schedule(f)
def s(s):
    s.fission("Li", 1)
)",
                13, 5, "fission would reverse a dependence between instances of the statements at lines 9 and 7");
}

TEST(FreeformSchedules, AParallelScatterSumsPrivatelyOrAtomically) {
  const char* source = R"(import teml
@teml.transform
def scatter(v: teml.Var[(N,), "float64"], idx: teml.Var[(N,), "int32"], y: teml.Var[(M,), "float64", "output"]):
    #! label: Lk
    for k in range(N):
        y[idx[k]] += v[k] * 2

@teml.schedule(scatter)
def s(s):
    s.parallelize("Lk")
)";
  // Few targets, many updates: each thread sums into its own copy of y.
  auto p = ff(source, {{"N", 64}, {"M", 8}});
  EXPECT_NE(cSource(p.program).find("reduction(+:y_acc)"), std::string::npos) << cSource(p.program);
  expectJitMatchesInterpreter(p.program);
  // Fewer updates than elements: zeroing and merging copies would cost more than atomic updates.
  auto sparse = ff(source, {{"N", 64}, {"M", 100000}});
  EXPECT_NE(cSource(sparse.program).find("omp atomic"), std::string::npos);
  expectJitMatchesInterpreter(sparse.program);
}

TEST(FreeformLanguage, ChecksMoveOutOfTheLoopsTheyDoNotDependOn) {
  auto p = ff(R"(import teml
@teml.transform
def f(x: teml.Var[(N, C), "float64"], idx: teml.Var[(N,), "int32"], ptr: teml.Var[(N + 1,), "int32"],
      y: teml.Var[(N, C), "float64", "output"]):
    for i in range(N):
        for c in range(C):
            y[i, c] = x[idx[i], c]
        for p in range(ptr[i], ptr[i + 1]):
            y[i] += x[idx[p]]
)",
              {{"N", 10}, {"C", 4}});
  std::string ir = irOf(p);
  // idx[i] is checked once per i, before the loop over c; the CSR loop's
  // iterator once per i, on its bounds.
  EXPECT_LT(ir.find("assert int64(idx[i]) >= 0"), ir.find("for c in"));
  EXPECT_LT(ir.find("assert int64(ptr[i]) >= int64(ptr[i + 1]) || int64(ptr[i]) >= 0 && int64(ptr[i + 1]) <= 10"),
            ir.find("for p in"));
  EXPECT_EQ(ir.find("int64(p) >= 0"), std::string::npos) << ir;
  auto in = randomInputs(p.program);
  for (int k = 0; k <= 10; ++k) in.at("ptr").setInt(k, k);
  expectJitMatchesInterpreter(p.program);
  in.at("ptr").setInt(10, 11);  // the last row's edges run past idx
  for (bool jit : {false, true}) {
    auto f = failureOf([&] { jit ? runJit(p.program, in) : runInterpreter(p.program, in); });
    ASSERT_TRUE(f.failed);
    EXPECT_EQ(f.message, "index 10 out of range [0, 10) for dimension 0 of 'idx'");
  }
}

TEST(FreeformSchedules, TileAndInterchangeNameTheirLoops) {
  auto p = ff(R"(import teml
@teml.transform
def f(a: teml.Var[(N, N), "float64"], b: teml.Var[(N, N), "float64"], c: teml.Var[(N, N), "float64", "output"]):
    #! label: Li
    for i in range(N):
        #! label: Lj
        for j in range(N):
            #! label: Lk
            for k in range(N):
                c[i, j] += a[i, k] * b[k, j]

@teml.schedule(f)
def s(s):
    s.tile("Li", 8)
    s.interchange("Lj", "Lk")
    s.parallelize("Li.o")
)",
              {{"N", 20}});
  std::string ir = irOf(p);
  ASSERT_NE(ir.find("@Lj "), std::string::npos) << ir;
  EXPECT_LT(ir.find("@Lk.o"), ir.find("@Li "));
  EXPECT_LT(ir.find("@Lk "), ir.find("@Lj "));
  EXPECT_NE(ir.find("@Lk.o  # line 9, tile of Lk"), std::string::npos) << ir;
  expectJitMatchesInterpreter(p.program);
}
