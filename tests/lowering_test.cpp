// Passes of the lowering stage as before/expected IR: what --emit lowered
// prints for a scheduled program, on a fixed target (AVX, 32-byte vectors),
// so that every decision the C emitter will print is visible and pinned.
#include "frontend/freeform/freeform.hpp"
#include "pipeline/freeform_schedule.hpp"
#include "ir/printer.hpp"
#include "lowering/lower.hpp"
#include "test_util.hpp"

using namespace teml;
using namespace teml::testing;

namespace {

const target::Target kAvx{target::Kind::Cpu, "avx", 32, 2};

std::string lowered(const std::string& source) {
  ir::Program p = pipeline::compileFreeform(source, hostFreeformOptions()).program;
  std::string text = ir::toString(lowering::lower(p, kAvx), true);
  return text.substr(text.find("# nest 1"));
}

}  // namespace

TEST(Lowering, ParallelReductionsGetAccumulatorsInTheirOwnType) {
  // y: a private array for the six elements each iteration of k updates,
  // copied in and out; s: an int64 scalar in a register.
  const char* source = R"(import teml

@teml.transform
def f(A: teml.Var[(8, 6), "float64"], y: teml.Var[(6,), "float64", "output"], s: teml.Var[(), "int64", "output"]):
    #! label: Lk
    for k in range(8):
        #! label: Lj
        for j in range(6):
            y[j] += A[k, j]
    #! label: Li
    for i in range(8):
        s[()] += i

@teml.schedule(f)
def sched(s):
    s.parallelize("Lk")
    s.parallelize("Li")
)";
  EXPECT_EQ(lowered(source), R"(# nest 1
var y_acc : double[6] stack  @S4  (lowering)
  for y_acc_in_z0 in [0, 6)  @y_acc.in.z0  # lowering
    y_acc[y_acc_in_z0] = y[y_acc_in_z0]  @S6  (lowering)
  for k in [0, 8) parallel reduction(+= y_acc of y)  @Lk  # line 6
    for j in [0, 6)  @Lj  # line 8
      y_acc[j] += A[k][j]  @S2  # line 9
  for y_acc_out_z0 in [0, 6)  @y_acc.out.z0  # lowering
    y[y_acc_out_z0] = y_acc[y_acc_out_z0]  @S7  (lowering)
var s_acc : int64[] register  @S8  (lowering)
  s_acc = s  @S10  (lowering)
  for i in [0, 8) parallel reduction(+= s_acc of s)  @Li  # line 11
    s_acc += i  @S3  # line 12
  s = s_acc  @S11  (lowering)
)");
}

TEST(Lowering, VectorPlansAndMemoryKinds) {
  // t lives on the stack; k is 13 doubles: three vectors of four jammed and
  // a masked one for the last.
  const char* source = R"(import teml

@teml.transform
def g(x: teml.Var[(10, 13), "float64"], y: teml.Var[(10, 13), "float64", "output"]):
    #! label: Li
    for i in range(10):
        t = teml.zeros((13,), "float64")
        #! label: Lj
        for j in range(13):
            t[j] = x[i, j] * 2
        #! label: Lk
        for k in range(13):
            y[i, k] = t[k] + 1

@teml.schedule(g)
def sched(s):
    s.vectorize("Lk")
)";
  EXPECT_EQ(lowered(source), R"(# nest 1
for i in [0, 10)  @Li  # line 6
  var t : double[13] stack  @S1  # line 7
    for j in [0, 13)  @Lj  # line 9
      t[j] = x[i][j] * 2.0  @S3  # line 10
    for k in [0, 13) vector plan(jammed, 4 x double over 13, masked tail 1)  @Lk  # line 12
      y[i][k] = t[k] + 1.0  @S4  # line 13
)");
}

TEST(Lowering, LargeScopedTensorsLiveOnTheHeap) {
  const char* source = R"(import teml

@teml.transform
def h(x: teml.Var[(40000,), "float64"], y: teml.Var[(40000,), "float64", "output"]):
    t = teml.zeros((40000,), "float64")
    #! label: Li
    for i in range(40000):
        t[i] = x[i] * 2
    #! label: Lj
    for j in range(40000):
        y[j] = t[39999 - j]  # reversed: the loops do not fuse
)";
  EXPECT_NE(lowered(source).find("var t : double[40000] heap"), std::string::npos) << lowered(source);
}

TEST(Lowering, LoopLocalTensorsStoreTheirBoxInItsCoordinates) {
  // cache(.., B) at the k block: the copy is a VarDef shaped as its 4 x 8
  // box, indexed from the box's corner, filled by a flat copy per row
  // block; the sums of C stay in vector registers over k.
  ir::Program p = compile(R"(A = tensor([8, 8])
B = tensor([8, 8])
C = contract(A, B, [2, 1])
l = build(C)
l1 = stripmine(l, 3, 4)
l2 = interchange(l1, 2, 3)
l3 = interchange(l2, 1, 2)
l4 = vectorize(l3, 3)
l5 = cache(l4, 1, B)
codegen(l5)
)");
  std::string text = ir::toString(lowering::lower(p, kAvx), false);
  EXPECT_NE(text.find("local B_cache : double  (copy, written before read, box [4 * i3_o, 0] size [4, 8], stack)"),
            std::string::npos) << text;
  EXPECT_NE(text.find("B_cache[i3 - 4 * i3_o][i2]"), std::string::npos) << text;
  EXPECT_EQ(text.find("B_cache[i3]"), std::string::npos) << text;
  EXPECT_NE(text.find("register-sums("), std::string::npos) << text;
  expectJitMatchesInterpreter(p);
}

TEST(Lowering, ScalarsOfALoopBodyAreCVariables) {
  // A fill in memory would keep GCC from vectorizing the loop around them.
  const char* source = R"(import teml

@teml.transform
def h(x: teml.Var[(64,), "float32"], y: teml.Var[(64,), "float32", "output"]):
    for i in range(64):
        d = x[i] * 2
        y[i] = d * d
)";
  EXPECT_NE(lowered(source).find("var d : float[] register"), std::string::npos) << lowered(source);
  std::string c = cSource(pipeline::compileFreeform(source, hostFreeformOptions()).program);
  EXPECT_NE(c.find("float d = 0;"), std::string::npos) << c;
  EXPECT_EQ(c.find("memset(d"), std::string::npos) << c;
}
