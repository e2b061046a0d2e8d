// .npy reading and writing.
#include <cstdio>
#include <fstream>

#include "runtime/npy.hpp"
#include "test_util.hpp"

using namespace teml;

TEST(Npy, RoundTripEveryElementType) {
  for (auto dtype : {ir::DType::F64, ir::DType::F32, ir::DType::I64, ir::DType::I32, ir::DType::Bool}) {
    runtime::Buffer b(dtype, {3, 4, 5});
    b.fillRandom(3);
    std::string path = teml::testing::cacheDir() + "-roundtrip.npy";
    runtime::writeNpy(path, b);
    runtime::Buffer c(dtype, {3, 4, 5});
    runtime::loadNpyInto(path, "T", c);
    EXPECT_EQ(runtime::maxRelativeDifference(b, c), 0.0) << ir::dtypeName(dtype);
    runtime::Buffer other(dtype == ir::DType::I32 ? ir::DType::I64 : ir::DType::I32, {3, 4, 5});
    EXPECT_THROW(runtime::loadNpyInto(path, "T", other), UsageError) << "the element type must match";
    std::remove(path.c_str());
  }
}

TEST(Npy, ScalarFile) {
  runtime::Buffer b(ir::DType::F64, {});
  b.set(0, 2.5);
  std::string path = teml::testing::cacheDir() + "-scalar.npy";
  runtime::writeNpy(path, b);
  auto arr = runtime::readNpy(path);
  EXPECT_TRUE(arr.shape.empty());
  EXPECT_EQ(arr.descr, "<f8");
  std::remove(path.c_str());
}

TEST(Npy, ShapeAndTypeMismatchNameTheTensor) {
  runtime::Buffer b(ir::DType::F64, {3, 4});
  std::string path = teml::testing::cacheDir() + "-mismatch.npy";
  runtime::writeNpy(path, b);
  runtime::Buffer wrongShape(ir::DType::F64, {4, 3});
  try {
    runtime::loadNpyInto(path, "A", wrongShape);
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("tensor 'A' is declared double[4, 3] but the file holds double[3, 4]"),
              std::string::npos)
        << e.what();
  }
  runtime::Buffer wrongType(ir::DType::F32, {3, 4});
  EXPECT_THROW(runtime::loadNpyInto(path, "A", wrongType), UsageError);
  std::remove(path.c_str());
}

TEST(Npy, GarbageIsRefused) {
  std::string path = teml::testing::cacheDir() + "-garbage.npy";
  {
    std::ofstream out(path);
    out << "\x93NUMPY\x01\x00\x10\x00{'descr': '<i2'}";
  }
  runtime::Buffer b(ir::DType::F64, {1});
  EXPECT_THROW(runtime::loadNpyInto(path, "A", b), UsageError);
  EXPECT_THROW(runtime::readNpy("/nonexistent/x.npy"), UsageError);
  std::remove(path.c_str());
}
