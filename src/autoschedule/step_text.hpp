// A step as a line of a free-form schedule: s.parallelize("Li").
#pragma once
#include <string>
#include <vector>

namespace teml::autoschedule {

std::string quoted(const std::string& s);
std::string stepText(const std::string& primitive, const std::vector<std::string>& args);

}  // namespace teml::autoschedule
