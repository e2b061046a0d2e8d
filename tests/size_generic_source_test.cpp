// C that serves every shape its numerals allow (runtime/size_generic_source.hpp).
#include "runtime/size_generic_source.hpp"

#include <gtest/gtest.h>

#include <set>

using namespace teml::runtime;

namespace {

// A kernel's C at rows R and columns C (both large), with a remainder of `tail`.
std::string source(long rows, long cols, long tail, const char* scale = "0.5f") {
  return "#pragma omp simd safelen(16)\n"
         "/* 2 loops */\n"
         "static void teml_nest_1(float (*restrict x)[" + std::to_string(cols) + "]) {\n"
         "  for (long i = 0; i < " + std::to_string(rows) + "; i++) {\n"
         "    for (long j = 0; j < " + std::to_string(cols - tail) + "; j += 16) x[i][j] *= " + scale + ";\n"
         "    teml_mstore_vf(&x[i][" + std::to_string(cols - tail) + "], 1.0f, " + std::to_string(tail) + ");\n"
         "    if (i >= " + std::to_string(rows) + ") teml_fail(3, 9, \"index {} out of range [0, " +
         std::to_string(rows) + ") for dimension 0 of 'x'\", (long)i);\n"
         "  }\n"
         "}\n";
}

}  // namespace

TEST(SizeGenericSource, NumeralsThatProbesChangeBecomeVariables) {
  auto g = generalize(source(1000, 500, 4), {source(1064, 564, 4), source(1001, 501, 5)});
  ASSERT_TRUE(g.has_value());
  EXPECT_NE(g->text.find("float (*restrict x)[teml_size_"), std::string::npos) << g->text;
  EXPECT_NE(g->text.find("const long teml_sz_0 = teml_size_0;"), std::string::npos) << "read from a local copy";
  EXPECT_NE(g->text.find("j += 16"), std::string::npos) << "the vector width stays";
  EXPECT_NE(g->text.find("#pragma omp simd safelen(16)"), std::string::npos);
  EXPECT_NE(g->text.find("/* 2 loops */"), std::string::npos) << "comments stay as written";
  EXPECT_NE(g->text.find("out of range [0, \\001"), std::string::npos) << "a message's extent is a marker";
  EXPECT_NE(g->text.find("void teml_bind_sizes(const long *ints, const double *reals)"), std::string::npos);

  auto values = instanceValues(*g, source(7400, 300, 12));
  ASSERT_TRUE(values.has_value()) << "only numerals that vary differ";
  size_t inMessage = g->numerals.size();
  while (g->numerals[--inMessage] != "1000") {
  }
  std::string marked = "index {} out of range [0, \001" + std::to_string(g->variable[inMessage]) + "\002)";
  EXPECT_EQ(expandMessage(marked, *values), "index {} out of range [0, 7400)");
}

TEST(SizeGenericSource, NumeralsEqualInEverySourceShareAVariable) {
  auto g = generalize(source(1000, 500, 4), {source(1064, 564, 4)});
  ASSERT_TRUE(g.has_value());
  // The rows' bound appears twice as code and once in the message: one variable for the code.
  std::set<int> rowVariables;
  for (size_t k = 0; k < g->numerals.size(); ++k)
    if (g->numerals[k] == "1000" && g->variable[k] >= 0) rowVariables.insert(g->variable[k]);
  EXPECT_EQ(rowVariables.size(), 2u) << "one in code, one in the message";
}

TEST(SizeGenericSource, ASourceThatDiffersElsewhereIsNotAnInstance) {
  auto g = generalize(source(1000, 500, 4), {source(1064, 564, 4)});
  ASSERT_TRUE(g.has_value());
  EXPECT_FALSE(instanceValues(*g, source(1000, 500, 5))) << "the remainder was no variable: no probe changed it";
  EXPECT_FALSE(instanceValues(*g, source(1000, 500, 4, "0.25f"))) << "nor was the scale";
  std::string other = source(1000, 500, 4);
  other.replace(other.find("*="), 2, "+=");
  EXPECT_FALSE(instanceValues(*g, other)) << "another key";
}

TEST(SizeGenericSource, ValuesThatSharedAVariableMustAgree) {
  auto g = generalize(source(1000, 500, 4), {source(1064, 564, 4)});
  ASSERT_TRUE(g.has_value());
  std::string split = source(2000, 500, 4);
  split.replace(split.find("i < 2000"), 8, "i < 1999");  // the loop's bound no longer the check's
  EXPECT_FALSE(instanceValues(*g, split));
}

TEST(SizeGenericSource, NothingVariesNothingToGeneralize) {
  EXPECT_FALSE(generalize(source(1000, 500, 4), {}));
  EXPECT_FALSE(generalize(source(1000, 500, 4), {source(1000, 500, 4)}));
}
