// No free-form program text, however mangled, crashes the front end or
// makes it emit ill-formed IR: random edits of the paper's workloads either
// compile (to IR that verifies and to C) or are refused with a UserError.
#include <fstream>
#include <sstream>

#include "frontend/freeform/freeform.hpp"
#include "pipeline/freeform_schedule.hpp"
#include "mutate.hpp"
#include "test_util.hpp"

using namespace teml;
using namespace teml::testing;

TEST(FreeformRobustness, MutatedWorkloadsNeverCrashTheFrontEnd) {
  std::vector<std::string> programs;
  for (const char* name : {"subdivnet", "longformer", "softras", "gat"}) {
    std::ifstream in(std::string(TEML_SOURCE_DIR) + "/examples/freetensor/" + name + ".py");
    std::stringstream text;
    text << in.rdbuf();
    programs.push_back(text.str());
  }
  freeform::FreeformOptions o = hostFreeformOptions();
  o.sizes = {{"n_faces", 12}, {"seq_len", 40}, {"feat_len", 8}, {"n_nodes", 10}, {"n_edges", 30}};
  std::mt19937 rng(4242);
  int accepted = 0, refused = 0;
  for (int n = 0; n < randomSequenceCount(1500); ++n) {
    std::string src = mutate(programs[rng() % programs.size()], rng);
    try {
      auto p = pipeline::compileFreeform(src, o);
      ASSERT_EQ(ir::verify(p.program), "") << src;
      cSource(p.program);
      ++accepted;
    } catch (const UserError&) {
      ++refused;
    } catch (const UsageError&) {
      ++refused;
    } catch (const std::exception& e) {
      ADD_FAILURE() << "unexpected " << e.what() << " for:\n" << src;
    }
  }
  std::cout << accepted << " mutated free-form programs accepted, " << refused << " refused\n";
  EXPECT_GT(accepted, 0);
  EXPECT_GT(refused, 0);
}
