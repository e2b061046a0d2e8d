// The C that generated CPU code calls for exp and sigmoid: teml's own
// exponentials, inline so that the vectorizer keeps a loop's other values in
// registers around them (a call into glibc's vector math clobbers every
// vector register), within 1 ulp of the exact result over every float and
// at most 1 ulp over 10^8 random doubles (tests/exp_accuracy_test.cpp).
#pragma once
#include <string>

namespace teml::codegen {

std::string mathPrelude();

}  // namespace teml::codegen
