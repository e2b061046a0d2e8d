#include "runtime/dynamic_library.hpp"

#include <dlfcn.h>

namespace teml::runtime {

DynamicLibrary::DynamicLibrary(const std::vector<std::string>& names) {
  for (auto& name : names)
    if ((handle_ = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL))) {
      file_ = name;
      return;
    }
}

void* DynamicLibrary::address(const char* symbol) const { return handle_ ? dlsym(handle_, symbol) : nullptr; }

}  // namespace teml::runtime
