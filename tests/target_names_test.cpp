// A target's name is read in one place (target::kindNamed) by the CLI's
// --target, Python's target= and @teml.schedule(f, target=...).
#include <gtest/gtest.h>

#include "target/target.hpp"

using namespace teml::target;

TEST(TargetNames, EachKindIsNamedByItsNameAndNothingElseNamesOne) {
  for (Kind k : {Kind::Cpu, Kind::Cuda}) EXPECT_EQ(kindNamed(kindName(k)), k);
  for (const char* other : {"", "gpu", "CUDA", "cpu ", "opencl"}) EXPECT_FALSE(kindNamed(other).has_value()) << other;
}
