// Outputs whose starting values the program never sees
// (analysis/written_before_read): every element stored before any read or
// update, shown for stores over whole extents and reads that stay on the
// stored elements; anything the walk cannot show leaves the tensor out, so
// a caller keeps zeroing it.
#include <set>

#include "analysis/written_before_read.hpp"
#include "frontend/freeform/freeform.hpp"
#include "pipeline/freeform_schedule.hpp"
#include "test_util.hpp"

using namespace teml;
using namespace teml::testing;

namespace {

bool unseen(const std::string& body, bool autoSchedule = false) {
  freeform::FreeformOptions o = hostFreeformOptions();
  o.autoSchedule = autoSchedule;
  std::string source = R"(import teml
@teml.transform
def f(x: teml.Var[(8, 6), "float32"], y: teml.Var[(8, 6), "float32", "output"]):
)" + body;
  return analysis::writtenBeforeRead(pipeline::compileFreeform(source, o).program).count("y") == 1;
}

}  // namespace

TEST(WrittenBeforeRead, ARowStoredThenReadInTheSameRow) {
  // A softmax: the row's elements stored, summed in the same iteration, then
  // divided in a later loop over the row.
  const char* softmax = R"(    for i in range(8):
        total = teml.zeros((), "float32")
        for j in range(6):
            y[i, j] = teml.exp(x[i, j])
            total[()] += y[i, j]
        for j in range(6):
            y[i, j] = y[i, j] / total[()]
)";
  EXPECT_TRUE(unseen(softmax));
  EXPECT_TRUE(unseen(softmax, true));  // parallel and vector loops keep their bounds
  // A second nest reads any element: the first has stored them all.
  EXPECT_TRUE(unseen(R"(    for i in range(8):
        for j in range(6):
            y[i, j] = x[i, j]
    for i in range(8):
        for j in range(6):
            y[i, j] += y[7 - i, 5 - j]
)"));
}

TEST(WrittenBeforeRead, WhatMaySeeAStartingValueIsLeftOut) {
  // An update first.
  EXPECT_FALSE(unseen("    for i in range(8):\n        for j in range(6):\n            y[i, j] += x[i, j]\n"));
  // A store that reads its own element.
  EXPECT_FALSE(unseen("    for i in range(8):\n        for j in range(6):\n            y[i, j] = y[i, j] * 2.0\n"));
  // A store under a branch.
  EXPECT_FALSE(unseen(
      "    for i in range(8):\n        for j in range(6):\n            if x[i, j] > 0:\n                y[i, j] = x[i, j]\n"));
  // Part of the extent.
  EXPECT_FALSE(unseen("    for i in range(8):\n        for j in range(5):\n            y[i, j] = x[i, j]\n"));
  // Subscripts that are not the iterators.
  EXPECT_FALSE(unseen("    for i in range(8):\n        for j in range(6):\n            y[i, 5 - j] = x[i, j]\n"));
  // A read of the next element, not yet stored, in the same loop.
  EXPECT_FALSE(unseen(R"(    for i in range(8):
        for j in range(6):
            y[i, j] = x[i, j]
            if j < 5:
                y[i, j] += y[i, j + 1]
)"));
  // A read of another row inside the loop over rows.
  EXPECT_FALSE(unseen(R"(    for i in range(8):
        for j in range(6):
            y[i, j] = x[i, j]
        for j in range(6):
            y[i, j] += y[7 - i, j]
)"));
}

namespace {

// The temporaries of `body` (after the parameters x and y) stored whole before they are read.
std::set<std::string> storedFirst(const std::string& body) {
  std::string source = R"(import teml
@teml.transform
def f(x: teml.Var[(8, 6), "float32"], y: teml.Var[(8, 6), "float32", "output"]):
)" + body;
  freeform::FreeformOptions o = hostFreeformOptions();
  o.autoSchedule = false;  // which may make them loop-local
  return analysis::temporariesWrittenBeforeRead(pipeline::compileFreeform(source, o).program);
}

}  // namespace

TEST(WrittenBeforeRead, TemporariesStoredWholeFirstAreLeftUnfilled) {
  // GAT's h: every row stored, then rows read in any order.
  EXPECT_EQ(storedFirst(R"(    h = teml.empty((8, 6), "float32")
    for i in range(8):
        for j in range(6):
            h[i, j] = x[i, j] * 2.0
    for i in range(8):
        for j in range(6):
            y[i, j] = h[7 - i, j]
)"),
            std::set<std::string>{"h"});
  // Defined in a loop and stored whole in each iteration before it is read.
  EXPECT_EQ(storedFirst(R"(    for i in range(8):
        t = teml.empty((6,), "float32")
        for j in range(6):
            t[j] = x[i, j]
        for j in range(6):
            y[i, j] = t[5 - j]
)"),
            std::set<std::string>{"t"});
  // Reduced into first (its zeros are seen), or stored in part: filled.
  EXPECT_EQ(storedFirst(R"(    s = teml.zeros((6,), "float32")
    p = teml.empty((6,), "float32")
    for i in range(8):
        for j in range(6):
            s[j] += x[i, j]
    for j in range(5):
        p[j] = s[j]
    for j in range(6):
        y[0, j] = p[j]
)"),
            std::set<std::string>{});
}
