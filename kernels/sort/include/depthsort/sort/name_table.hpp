// The command-line names of an enum's values (distributions, camera paths): one table each, and
// one lookup both ways and one list for --help.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace depthsort {

template <class Enum>
struct Named {
  Enum value;
  std::string_view name;
};

template <class Enum, std::size_t N>
std::string_view name_in(const std::array<Named<Enum>, N>& table, Enum value) {
  for (const auto& entry : table)
    if (entry.value == value) return entry.name;
  return "?";
}

template <class Enum, std::size_t N>
std::optional<Enum> parse_in(const std::array<Named<Enum>, N>& table, std::string_view name) {
  for (const auto& entry : table)
    if (entry.name == name) return entry.value;
  return std::nullopt;
}

template <class Enum, std::size_t N>
std::string names_in(const std::array<Named<Enum>, N>& table) {
  std::string names;
  for (const auto& entry : table) {
    if (!names.empty()) names += ", ";
    names += entry.name;
  }
  return names;
}

}  // namespace depthsort
