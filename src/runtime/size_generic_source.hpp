// C that serves every shape its numerals allow (docs/python.md, "New
// shapes"). Where no size decides the code, the C of one program at two sets
// of sizes differs only in numerals: loop bounds, strides, element counts,
// scale factors, the extents in index checks' messages. Those numerals become
// variables of the kernel, bound before each run, so one compiled kernel runs
// every source that differs from the first only there. Whether a source is
// such an instance is decided on its own text, numeral by numeral, never
// assumed: a size that changes anything else gets a kernel of its own.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace teml::runtime {

struct SizeGenericSource {
  // The C with the numerals that vary as variables: `teml_size_K` (long,
  // float or double, as the numeral was written) and, in a string, the marker
  // "\001K\002" (expandMessage). It defines
  //   void teml_bind_sizes(const long *ints, const double *reals)
  // which sets the integer variables from `ints` and the others from `reals`,
  // each in the order of K.
  std::string text;
  // The source with every numeral blanked (its kind kept): sources with the
  // same key differ in numerals only.
  std::string key;
  std::vector<std::string> numerals;  // each numeral of the source generalized, in order
  std::vector<int> variable;          // per numeral: its K, or -1 where it stays as written
};

// What binds a generic source to one of its instances.
struct SizeValues {
  std::vector<long> ints;
  std::vector<double> reals;
  std::vector<std::string> spelled;  // per K, as the instance writes it (for messages)
};

// The key of a C source (SizeGenericSource::key).
std::string sizeGenericKey(const std::string& source);

// `source` with the numerals that differ in `probes` (the source of the same
// program at other sizes) made variables; probes with another key are
// ignored. Nullopt when no numeral varies.
std::optional<SizeGenericSource> generalize(const std::string& source, const std::vector<std::string>& probes);

// The values that make `generic` say what `source` says: nullopt when the
// two differ anywhere else (another key, or a numeral kept as written).
std::optional<SizeValues> instanceValues(const SizeGenericSource& generic, const std::string& source);

// A message of the generic kernel (an index check's) with its markers
// replaced by the values it ran with.
std::string expandMessage(const std::string& message, const SizeValues& values);

}  // namespace teml::runtime
