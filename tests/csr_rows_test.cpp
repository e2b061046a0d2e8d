// Loops over the entries of CSR rows (ir/csr_rows): each row loop checks at
// run time that its row array does not decrease, and the dependence
// analysis relies on it, so a loop over rows whose entries it writes in
// place (FreeTensor's GAT: edge[k] in rows of ptr) runs on threads, split
// into blocks too. Rows out of order stop the run with the row named; rows
// the analysis cannot see checked are not taken apart.
#include "analysis/legality.hpp"
#include "backend/cuda/cuda_emulation.hpp"
#include "frontend/freeform/freeform.hpp"
#include "lowering/lower.hpp"
#include "pipeline/freeform_schedule.hpp"
#include "ir/csr_rows.hpp"
#include "ir/printer.hpp"
#include "test_util.hpp"

using namespace teml;
using namespace teml::testing;

namespace {

const char* kRowsInPlace = R"(import teml
@teml.transform
def f(ptr: teml.Var[(9,), "int32"], idx: teml.Var[(20,), "int32"], x: teml.Var[(8,), "int64"],
      y: teml.Var[(8,), "int64", "output"], edge: teml.Var[(20,), "int64", "output"]):
    #! label: Lnode
    for i in range(8):
        for k in range(ptr[i], ptr[i + 1]):
            edge[k] = x[idx[k]] * (i + 1)
        for k in range(ptr[i], ptr[i + 1]):
            edge[k] += edge[k] % 7
            y[i] += edge[k]
)";

ir::Program asWritten(const std::string& source, const std::string& schedule = "") {
  freeform::FreeformOptions o = hostFreeformOptions();
  o.autoSchedule = false;
  return pipeline::compileFreeform(source + schedule, o).program;
}

runtime::BufferMap rows(const ir::Program& p, const std::vector<int>& ptr) {
  runtime::BufferMap b = runtime::allocateBuffers(p);
  for (size_t k = 0; k < ptr.size(); ++k) b.at("ptr").setInt(static_cast<int64_t>(k), ptr[k]);
  for (int k = 0; k < 20; ++k) b.at("idx").setInt(k, (k * 5) % 8);
  for (int k = 0; k < 8; ++k) b.at("x").setInt(k, 3 * k + 1);
  return b;
}

}  // namespace

TEST(CsrRows, RowLoopsCheckTheirRowsAreInOrder) {
  std::string printed = ir::toString(asWritten(kRowsInPlace), false);
  EXPECT_EQ(occurrences(printed, "assert ptr[i] <= ptr[i + 1]"), 2) << printed;
}

TEST(CsrRows, TheBoundsOfARowAreCheckedOnceForAllTheTensorsItIndexes) {
  // edge[k] and idx[k] in one row: one check of k's bounds, naming the first.
  std::string printed = ir::toString(asWritten(R"(import teml
@teml.transform
def f(ptr: teml.Var[(9,), "int32"], idx: teml.Var[(20,), "int32"], edge: teml.Var[(20,), "int64"],
      x: teml.Var[(8,), "int64"], y: teml.Var[(8,), "int64", "output"]):
    for i in range(8):
        for k in range(ptr[i], ptr[i + 1]):
            y[i] += edge[k] * x[idx[k]]
)"), false);
  EXPECT_EQ(occurrences(printed, "out of range [0, 20)"), 1) << printed;
  EXPECT_EQ(occurrences(printed, "dimension 0 of 'edge'"), 1) << printed;
}

TEST(CsrRows, ALoopWritingItsRowsEntriesInPlaceRunsOnThreads) {
  for (const char* schedule : {"@teml.schedule(f)\ndef s(s):\n    s.parallelize(\"Lnode\")\n",
                               "@teml.schedule(f)\ndef s(s):\n    b, _ = s.split(\"Lnode\", 3)\n    s.parallelize(b, \"dynamic\")\n"}) {
    SCOPED_TRACE(schedule);
    ir::Program p = asWritten(kRowsInPlace, schedule);
    ASSERT_TRUE(hasParallelLoop(p));
    runtime::BufferMap in = rows(p, {0, 3, 3, 7, 9, 14, 15, 15, 20});  // empty rows too
    auto want = runInterpreter(asWritten(kRowsInPlace), in);
    for (int threads : {1, 2, 4}) {
      auto got = runJit(p, in, threads);
      for (auto t : {"y", "edge"})
        for (int64_t k = 0; k < want.at(t).size(); ++k) ASSERT_EQ(got.at(t).getInt(k), want.at(t).getInt(k)) << t << k;
    }
  }
}

TEST(CsrRows, ALoopWritingItsRowsAndScatteringToNeighboursRunsOnThreads) {
  // The shape of GAT's backward node loop: the row's entries written in
  // place, and sums into the neighbours (z[idx[k]]) that other rows share.
  // The sums get a copy per thread or atomic updates, the rows none.
  const char* scatter = R"(import teml
@teml.transform
def f(ptr: teml.Var[(9,), "int32"], idx: teml.Var[(20,), "int32"], x: teml.Var[(8,), "int64"],
      z: teml.Var[(8,), "int64", "output"], edge: teml.Var[(20,), "int64", "output"]):
    #! label: Lnode
    for i in range(8):
        for k in range(ptr[i], ptr[i + 1]):
            edge[k] = x[idx[k]] * (i + 1)
        for k in range(ptr[i], ptr[i + 1]):
            edge[k] += edge[k] % 7
            z[idx[k]] += edge[k] * x[i]
)";
  for (const char* schedule : {"@teml.schedule(f)\ndef s(s):\n    s.parallelize(\"Lnode\")\n",
                               "@teml.schedule(f)\ndef s(s):\n    b, _ = s.split(\"Lnode\", 3)\n    s.parallelize(b, \"dynamic\")\n"}) {
    SCOPED_TRACE(schedule);
    ir::Program p = asWritten(scatter, schedule);
    ASSERT_TRUE(hasParallelLoop(p));
    runtime::BufferMap in = rows(p, {0, 3, 3, 7, 9, 14, 15, 15, 20});
    auto want = runInterpreter(asWritten(scatter), in);
    for (int threads : {1, 2, 4}) {
      auto got = runJit(p, in, threads);
      for (auto t : {"z", "edge"})
        for (int64_t k = 0; k < want.at(t).size(); ++k) ASSERT_EQ(got.at(t).getInt(k), want.at(t).getInt(k)) << t << k;
    }
  }
}

TEST(CsrRows, RowsOutOfOrderStopTheRun) {
  ir::Program p = asWritten(kRowsInPlace, "@teml.schedule(f)\ndef s(s):\n    s.parallelize(\"Lnode\")\n");
  runtime::BufferMap in = rows(p, {0, 3, 6, 4, 9, 14, 15, 15, 20});  // rows 2 and 3 overlap
  for (bool compiled : {false, true}) try {
      compiled ? runJit(p, in, 2) : runInterpreter(p, in);
      ADD_FAILURE() << "the run should stop";
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find("the rows of 'ptr' decrease after row 2"), std::string::npos) << e.what();
    }
}

TEST(CsrRows, RowsOutOfOrderStopTheRunWhenTheirCheckRunsInLanes) {
  // The rows checked before the blocks run, in SIMD lanes: an OR over all
  // rows first, then one by one only to name the first that fails.
  ir::Program p = asWritten(kRowsInPlace,
                            "@teml.schedule(f)\ndef s(s):\n    b, _ = s.split(\"Lnode\", 3)\n"
                            "    s.parallelize(b, \"dynamic\")\n    s.vectorize(\"ptr.rows\")\n");
  EXPECT_NE(cSource(p).find("reduction(|:"), std::string::npos) << cSource(p);
  auto want = runInterpreter(asWritten(kRowsInPlace), rows(p, {0, 3, 3, 7, 9, 14, 15, 15, 20}));
  auto got = runJit(p, rows(p, {0, 3, 3, 7, 9, 14, 15, 15, 20}), 2);
  for (int64_t k = 0; k < 8; ++k) ASSERT_EQ(got.at("y").getInt(k), want.at("y").getInt(k)) << k;
  runtime::BufferMap in = rows(p, {0, 3, 6, 4, 9, 14, 15, 12, 20});  // rows 2 and 6 overlap
  try {
    runJit(p, in, 2);
    ADD_FAILURE() << "the run should stop";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("the rows of 'ptr' decrease after row 2"), std::string::npos) << e.what();
  }
}

TEST(CsrRows, RowsThatNeverRunAreCheckedToo) {
  // Row 1 decreases and is skipped by the branch: rows 0 and 2 overlap at
  // entries 3 and 4, which checks of the rows that run alone would miss.
  const char* guarded = R"(import teml
@teml.transform
def f(ptr: teml.Var[(4,), "int32"], on: teml.Var[(3,), "int32"], y: teml.Var[(8,), "int64", "output"]):
    #! label: Lnode
    for i in range(3):
        if on[i] > 0:
            for k in range(ptr[i], ptr[i + 1]):
                y[k] += i + 1
@teml.schedule(f)
def s(s):
    s.parallelize("Lnode")
)";
  ir::Program p = asWritten(guarded);
  runtime::BufferMap in = runtime::allocateBuffers(p);
  std::vector<int> ptr = {0, 5, 3, 8}, on = {1, 0, 1};
  for (int k = 0; k < 4; ++k) in.at("ptr").setInt(k, ptr[k]);
  for (int k = 0; k < 3; ++k) in.at("on").setInt(k, on[k]);
  for (bool compiled : {false, true}) try {
      compiled ? runJit(p, in, 2) : runInterpreter(p, in);
      ADD_FAILURE() << "the run should stop";
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find("the rows of 'ptr' decrease after row 1"), std::string::npos) << e.what();
    }
}

TEST(CsrRows, RowsNotCheckedAreNotTakenApart) {
  // The same loop built without the checks: writes of edge[k] from
  // different iterations may meet.
  using namespace ir;
  auto tag = [](const std::string& id) { return StmtTag{id, {"i", "k"}, {var("i"), var("k")}}; };
  ExprP start = load("ptr", {var("i")}, DType::I32), end = load("ptr", {add(var("i"), intConst(1))}, DType::I32);
  StmtP row = makeFor("Lk", "k", start, end, 1, LoopKind{},
                      makeStore("edge", {var("k")}, add(load("edge", {var("k")}, DType::I64), var("i")), SourceLoc{1, 1}, tag("S")));
  StmtP nest = makeFor("Li", "i", intConst(0), intConst(8), 1, LoopKind{}, row);
  EXPECT_FALSE(analysis::loopIsIndependent(nest, "Li"));
  StmtP checked = makeFor("Li", "i", intConst(0), intConst(8), 1, LoopKind{}, rowOrderCheck("ptr", DType::I32, var("i"), SourceLoc{1, 1}, row));
  EXPECT_TRUE(analysis::loopIsIndependent(checked, "Li"));
}

TEST(CsrRows, EachRowIsCheckedOnceInTheCodeThatRunsOnTheCpuAndTheGpu) {
  // The whole array's check runs before the rows; the row loops' own
  // checks (which the dependence analysis read) are gone from the lowered
  // code, and rows out of order still stop the run (lowering/row_checks_once).
  ir::Program cpu = asWritten(kRowsInPlace, "@teml.schedule(f)\ndef s(s):\n    s.parallelize(\"Lnode\")\n");
  freeform::FreeformOptions o;
  o.target = target::cudaTarget();
  o.autoSchedule = false;
  ir::Program gpu = pipeline::compileFreeform(
      std::string(kRowsInPlace) + "@teml.schedule(f)\ndef s(s):\n    s.parallelize(\"Lnode\", \"blockIdx.x\")\n", o).program;
  for (bool onGpu : {false, true}) {
    std::string lowered = ir::toString(lowering::lower(onGpu ? gpu : cpu, onGpu ? target::cudaTarget() : target::hostCpu()), false);
    EXPECT_EQ(occurrences(lowered, "assert ptr[i] <= ptr[i + 1]"), 0) << lowered;
    EXPECT_GE(occurrences(lowered, "assert ptr[ptr.row] <= ptr[ptr.row + 1]"), 1) << lowered;
  }
  runtime::BufferMap in = rows(gpu, {0, 3, 6, 4, 9, 14, 15, 15, 20});  // rows 2 and 3 overlap
  runtime::JitOptions jit;
  jit.cacheDir = cacheDir();
  for (bool onGpu : {false, true}) try {
      auto b = in;
      if (onGpu) backend::emulateCuda(lowering::lower(gpu, target::cudaTarget()), b, jit);
      else runJit(cpu, b, 2);
      ADD_FAILURE() << "the run should stop";
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find("the rows of 'ptr' decrease after row 2"), std::string::npos) << e.what();
    }
}
