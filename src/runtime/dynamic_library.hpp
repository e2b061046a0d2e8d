// A shared library loaded at run time, and an API's entry points bound from
// it by name: the CUDA driver, NVRTC and cuBLAS, which teml calls without
// linking against them (it builds without CUDA's headers or libraries).
// Each API lists its entry points once (Halide's cuda_functions.h):
//   #define TEML_FOO_API(X) X(int, create, "fooCreate", (void**)) ...
//   struct Api { TEML_FOO_API(TEML_ENTRY_FIELD) };
//   const char* missing = bindEntries(library, api)  // with TEML_ENTRY_BIND
#pragma once
#include <string>
#include <vector>

namespace teml::runtime {

class DynamicLibrary {
 public:
  // The first of `names` that loads (a soname or a path); not loaded when none does.
  explicit DynamicLibrary(const std::vector<std::string>& names);
  bool loaded() const { return handle_ != nullptr; }
  const std::string& file() const { return file_; }  // the name that loaded
  // `slot` set to the entry point `symbol`; false when the library lacks it.
  template <class F>
  bool bind(F*& slot, const char* symbol) const {
    slot = reinterpret_cast<F*>(address(symbol));
    return slot != nullptr;
  }

 private:
  void* address(const char* symbol) const;
  void* handle_ = nullptr;  // kept open for the life of the process
  std::string file_;
};

}  // namespace teml::runtime

// One entry point of a list: a field of the API's struct, and its binding
// (in a function of `library` and `api` that returns the first symbol
// missing, or null).
#define TEML_ENTRY_FIELD(ret, field, symbol, params) ret(*field) params = nullptr;
#define TEML_ENTRY_BIND(ret, field, symbol, params) \
  if (!library.bind(api.field, symbol)) return symbol;
