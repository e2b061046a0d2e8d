// Prefetches for gathers and scatters through indices read from data
// (lowering/indirect_prefetches): a serial loop over edges fetches the rows
// the iteration kPrefetchAhead later touches, one address per cache line;
// -v says so; results are the interpreter's; and no prefetch is made whose
// address could read an index out of bounds.
#include "frontend/freeform/freeform.hpp"
#include "pipeline/freeform_schedule.hpp"
#include "lowering/decisions.hpp"
#include "lowering/cpu/indirect_prefetches.hpp"
#include "lowering/lower.hpp"
#include "test_util.hpp"

using namespace teml;
using namespace teml::testing;

namespace {

// As written: no loop on threads, no accumulators.
ir::Program freeformProgram(const std::string& source) {
  freeform::FreeformOptions o = hostFreeformOptions();
  o.autoSchedule = false;
  return pipeline::compileFreeform(source, o).program;
}

std::vector<std::string> prefetchDecisions(const ir::Program& p) {
  std::vector<std::string> out;
  for (auto& d : lowering::decisions(lowering::lower(p, driver::machineTarget())))
    if (d.find("prefetches") != std::string::npos) out.push_back(d);
  return out;
}

}  // namespace

TEST(IndirectPrefetches, ALoopOverEdgesFetchesTheRowsOfLaterEdges) {
  // Per node, its edges' rows of h (32 int64: four cache lines, five where
  // h does not start on a line, hence the last element too) are summed, and
  // each edge adds into el through the same index. Both are larger than a
  // cache keeps (kCachedBytes).
  auto p = freeformProgram(R"(import teml

@teml.transform
def f(ptr: teml.Var[(9,), "int32"], idx: teml.Var[(40,), "int32"], h: teml.Var[(2048, 32), "int64"],
      y: teml.Var[(8, 32), "int64", "output"], el: teml.Var[(65536,), "int64", "output"]):
    for i in range(8):
        #! label: Le
        for p in range(ptr[i], ptr[i + 1]):
            y[i] += h[idx[p]]
            el[idx[p]] += i
)");
  EXPECT_EQ(prefetchDecisions(p),
            std::vector<std::string>{"loop 'Le': prefetches 32 iterations ahead what it reads or updates through indices "
                                     "from data: h[int64(idx[p])][0], h[int64(idx[p])][8], h[int64(idx[p])][16], "
                                     "h[int64(idx[p])][24], h[int64(idx[p])][31], el[int64(idx[p])] for writing"});
  std::string c = cSource(p);
  // Six in each copy of the loop: with and without the checks of idx (lowering/checks_by_range).
  EXPECT_EQ(occurrences(c, "__builtin_prefetch("), 12) << c;
  // Guarded by the bounds of idx, not of the node's edges: the last edges
  // of a node fetch the rows of the next node's first ones.
  EXPECT_NE(c.find("if (((p + 32 >= 0) & (p + 32 < 40))) {"), std::string::npos) << c;
  runtime::BufferMap in = runtime::allocateBuffers(p);
  for (int k = 0; k <= 8; ++k) in.at("ptr").setInt(k, k * 5);  // 5 edges a node: each fetches for a node three later
  for (int k = 0; k < 40; ++k) in.at("idx").setInt(k, (k * 7) % 16);
  for (int64_t k = 0; k < 2048 * 32; ++k) in.at("h").setInt(k, k * 3 + 1);
  auto want = runInterpreter(p, in);
  for (int threads : {1, 2, 4}) {
    auto got = runJit(p, in, threads);
    for (auto t : {"y", "el"})
      for (int64_t k = 0; k < want.at(t).size(); ++k) ASSERT_EQ(got.at(t).getInt(k), want.at(t).getInt(k)) << t << k;
  }
}

TEST(IndirectPrefetches, NoneWhoseAddressCouldReadAnIndexOutOfBounds) {
  // h[idx[q[p]]]: computing its address 32 iterations ahead would read
  // idx at q[p + 32], which is checked only when that iteration runs. The
  // address of idx[q[p + 32]] reads only q (a prefetch itself never faults).
  auto twoLevels = freeformProgram(R"(import teml

@teml.transform
def f(q: teml.Var[(8,), "int32"], idx: teml.Var[(131072,), "int32"], h: teml.Var[(8,), "float64"],
      y: teml.Var[(8,), "float64", "output"]):
    for p in range(8):
        y[p] = h[idx[q[p]]]
)");
  EXPECT_EQ(prefetchDecisions(twoLevels),
            std::vector<std::string>{"loop 'L6': prefetches 32 iterations ahead what it reads or updates through "
                                     "indices from data: idx[int64(q[p])]"});
  // The loop writes its index tensor.
  auto written = freeformProgram(R"(import teml

@teml.transform
def f(idx: teml.Var[(8,), "int32", "inout"], h: teml.Var[(8,), "float64"], y: teml.Var[(8,), "float64", "output"]):
    for p in range(8):
        idx[p] = (idx[p] + 1) % 8
        y[p] = h[idx[p]]
)");
  EXPECT_TRUE(prefetchDecisions(written).empty());
  // An affine gather needs none: hardware prefetchers follow it.
  auto affine = freeformProgram(R"(import teml

@teml.transform
def f(h: teml.Var[(16,), "float64"], y: teml.Var[(8,), "float64", "output"]):
    for p in range(8):
        y[p] = h[2 * p]
)");
  EXPECT_TRUE(prefetchDecisions(affine).empty());
}

TEST(IndirectPrefetches, NoneForATensorTheCacheKeeps) {
  // SpMV's x[col[k]] with x of 20,000 doubles (160 KB): after the first rows
  // every gather hits the cache, and fetching ahead only adds work.
  auto p = freeformProgram(R"(import teml

@teml.transform
def f(ptr: teml.Var[(101,), "int32"], col: teml.Var[(2000,), "int32"], val: teml.Var[(2000,), "float64"],
      x: teml.Var[(20000,), "float64"], y: teml.Var[(100,), "float64", "output"]):
    for i in range(100):
        for k in range(ptr[i], ptr[i + 1]):
            y[i] += val[k] * x[col[k]]
)");
  EXPECT_TRUE(prefetchDecisions(p).empty());
}

TEST(IndirectPrefetches, ABagsLastEntriesFetchTheNextBagsFirstRows) {
  // index[b][l + 32] past a bag of 8 entries runs on into the next bags'
  // (index[b + (l + 32) // 8][(l + 32) % 8]), guarded by the bounds of the
  // whole index tensor: every entry of every bag but the first is fetched.
  auto p = freeformProgram(R"(import teml

@teml.transform
def f(table: teml.Var[(4096, 32), "int64"], index: teml.Var[(20, 8), "int32"], y: teml.Var[(20, 32), "int64", "output"]):
    for b in range(20):
        #! label: Ll
        for l in range(8):
            for d in range(32):
                y[b, d] += table[index[b, l], d]
)");
  std::string c = cSource(p);
  EXPECT_NE(c.find("index_[b + teml_floordiv(l + 32, 8)][teml_mod(l + 32, 8)]"), std::string::npos) << c;
  EXPECT_NE(c.find("b * 8 + (l + 32) < 160"), std::string::npos) << c;
  runtime::BufferMap in = runtime::allocateBuffers(p);
  for (int k = 0; k < 160; ++k) in.at("index").setInt(k, (k * 37) % 4096);
  for (int64_t k = 0; k < 4096 * 32; ++k) in.at("table").setInt(k, k % 1000 - 300);
  auto want = runInterpreter(p, in);
  for (int threads : {1, 2}) {
    auto got = runJit(p, in, threads);
    for (int64_t k = 0; k < want.at("y").size(); ++k) ASSERT_EQ(got.at("y").getInt(k), want.at("y").getInt(k)) << k;
  }
}
