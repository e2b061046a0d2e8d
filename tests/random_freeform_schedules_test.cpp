// Random free-form programs — data-dependent branches, gathers and scatters
// through index tensors, CSR loops, windows guarded by conditions, local
// tensors, helper functions, dependences carried by loops — compiled by the
// free-form front end, then random sequences of schedule primitives on
// loops named by id. Every accepted sequence must compute what the program
// as written computes (reference interpreter on both; every eighth also
// compiled and run on two threads). TEML_RANDOM_SEQUENCES and
// TEML_RANDOM_SEED as in random_schedules_test.cpp; `long_tests` runs
// thousands.
#include <iostream>
#include <random>

#include "frontend/freeform/freeform.hpp"
#include "pipeline/freeform_schedule.hpp"
#include "random_freeform_programs.hpp"
#include "random_steps.hpp"
#include "test_util.hpp"

using namespace teml;
using namespace teml::testing;

TEST(RandomFreeformSchedules, AcceptedSequencesPreserveResults) {
  const char* seed = std::getenv("TEML_RANDOM_SEED");
  std::mt19937 rng(seed ? static_cast<unsigned>(std::atoi(seed)) : 2028u);
  RandomCounts counts;
  const int total = randomSequenceCount(200);
  for (int n = 0; n < total; ++n) {
    std::string source = randomFreeformProgram(rng);
    SCOPED_TRACE(source);
    checkRandomSequence(rng, pipeline::compileFreeform(source, hostFreeformOptions()).program, n, n % 8 == 0, 1e-9, counts);
  }
  std::cout << total << " random free-form programs: " << counts.accepted << " steps accepted, " << counts.refused
            << " refused, " << counts.compiled << " programs compiled, " << counts.threaded
            << " parallel ones run on 2, 4 and 8 threads\n";
  EXPECT_GT(counts.threaded, 0);
  EXPECT_GT(counts.accepted, 0);
  EXPECT_GT(counts.refused, 0);
}
