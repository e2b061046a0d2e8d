// Branches that only choose a value become selects when lowered
// (lowering/branches_to_selects), so that pixel loops written with if/elif/
// else run in SIMD lanes; a branch that guards an index read from data
// stays a branch.
#include "frontend/freeform/freeform.hpp"
#include "pipeline/freeform_schedule.hpp"
#include "ir/printer.hpp"
#include "lowering/checks_by_range.hpp"
#include "lowering/lower.hpp"
#include "test_util.hpp"

using namespace teml;
using namespace teml::testing;

namespace {

ir::Program program(const std::string& source, std::map<std::string, int64_t> sizes) {
  freeform::FreeformOptions o = hostFreeformOptions();
  o.sizes = std::move(sizes);
  return pipeline::compileFreeform(source, o).program;
}

// Branches in the code that runs when the indices are in range (the copy
// without the checks the ranges prove: lowering/checks_by_range).
int branchesAfterLowering(const ir::Program& p) {
  int n = 0;
  for (auto nest : lowering::lower(p, driver::machineTarget()).nests) {
    ir::forEachStmt(nest, [&](const ir::StmtP& s) {
      if (s->kind == ir::StmtKind::If && s->id == lowering::kChecksByRangeId) nest = s->as<ir::If>().then;
    });
    ir::forEachStmt(nest, [&](const ir::StmtP& s) { n += s->kind == ir::StmtKind::If; });
  }
  return n;
}

// SoftRas's distance to a segment as its users write it: a local chosen in
// if/elif/else inside a helper, and the result's sign by a branch on
// conditions joined by `and`/`or` (computed without branches in C too).
const char* kChosenInBranches = R"(import teml

def dist2(px, ax, bx):
    d = teml.empty((), "float32")
    t = (px - ax) / (bx - ax)
    if t < 0:
        d[()] = (px - ax) * (px - ax)
    elif t > 1:
        d[()] = (px - bx) * (px - bx)
    else:
        d[()] = 0.5 * t
    return d[()]

@teml.transform
def f(a: teml.Var[(n,), "float32"], b: teml.Var[(n,), "float32"], y: teml.Var[(n, w), "float32", "output"]):
    for i in range(n):
        for j in range(w):
            px = (2 * j + 1) / w - 1
            d = min(dist2(px, a[i], b[i]), dist2(px, b[i], a[i]))
            inside = px * a[i] > 0 and px < 0.5 or px < -0.75
            if inside:
                y[i, j] = teml.sigmoid(d)
            else:
                y[i, j] = teml.sigmoid(-d)
)";

}  // namespace

TEST(BranchesToSelects, ValuesChosenInBranchesBecomeSelects) {
  for (int64_t w : {8, 13, 64}) {  // across the vector width, and not a multiple of it
    SCOPED_TRACE(w);
    ir::Program p = program(kChosenInBranches, {{"n", 37}, {"w", w}});
    EXPECT_EQ(branchesAfterLowering(p), 0);
    expectJitMatchesInterpreter(p);
  }
}

TEST(BranchesToSelects, ABranchGuardingAnIndexFromDataStays) {
  ir::Program p = program(R"(import teml

@teml.transform
def f(idx: teml.Var[(n,), "int32"], x: teml.Var[(m,), "float64"], y: teml.Var[(n,), "float64", "output"]):
    for i in range(n):
        if idx[i] >= 0 and idx[i] < m:
            y[i] = x[idx[i]]
        else:
            y[i] = 0
)",
                          {{"n", 40}, {"m", 10}});
  EXPECT_EQ(branchesAfterLowering(p), 1);
  runtime::BufferMap in = runtime::allocateBuffers(p);
  for (int i = 0; i < 40; ++i) in.at("idx").setInt(i, i % 3 == 0 ? 1000 + i : i % 10);  // a third far out of range
  for (int k = 0; k < 10; ++k) in.at("x").set(k, k + 0.5);
  auto want = runInterpreter(p, in);
  auto got = runJit(p, in);
  for (int i = 0; i < 40; ++i) EXPECT_EQ(got.at("y").get(i), want.at("y").get(i)) << i;
}
