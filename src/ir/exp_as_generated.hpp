// exp as generated CPU code computes it (backend/cpu/math_prelude.cpp's
// teml_exp): the same operations in the same order, compiled without FMA
// contraction, so that the interpreter and code compiled with
// -ffp-contract=off agree bit for bit (the fuzz harness's check of a
// program that branches on its own roundoff relies on it;
// tests/exp_accuracy_test.cpp compares the two).
#pragma once

namespace teml::ir {

double expAsGenerated(double x);

}  // namespace teml::ir
