// One name table per enumeration: the names its values are written and read as, in
// model files, messages, the command line's validators and its help. The first name
// of a value is its canonical one (written, listed); later names of the same value
// are accepted aliases ("polynomial" for poly).
//
// Each enumeration declares its table beside itself, with a `name_table` overload
// that argument-dependent lookup finds:
//
//   inline constexpr NameTable<KernelType, 8> kKernelNames{"kernel", {{{KernelType::linear, "linear"}, ...}}};
//   constexpr const auto& name_table(KernelType) { return kKernelNames; }
//
// and then parse_name<KernelType>("rbf"), name_of(KernelType::rbf) and
// canonical_names<KernelType>() work for it with no further code.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "mlt/core/error.hpp"

namespace mlt {

template <typename E>
struct Named {
  E value;
  std::string_view name;
};

template <typename E, std::size_t N>
struct NameTable {
  std::string_view what;  // "kernel", for "unknown kernel "x" (linear, poly, ...)"
  std::array<Named<E>, N> entries;

  // The canonical names, in table order.
  std::vector<std::string> canonical() const {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < N; ++i) {
      bool first = true;
      for (std::size_t j = 0; j < i; ++j) first = first && entries[j].value != entries[i].value;
      if (first) out.emplace_back(entries[i].name);
    }
    return out;
  }
  // Every name a value may be given by, aliases included.
  bool accepts(std::string_view name) const {
    for (const auto& e : entries)
      if (e.name == name) return true;
    return false;
  }
  E parse(std::string_view name) const {
    for (const auto& e : entries)
      if (e.name == name) return e.value;
    std::string list;
    for (const std::string& c : canonical()) list += (list.empty() ? "" : ", ") + c;
    throw UsageError("unknown " + std::string(what) + " \"" + std::string(name) + "\" (" + list + ")");
  }
  std::string_view name(E value) const {
    for (const auto& e : entries)
      if (e.value == value) return e.name;
    return "?";
  }
};

// UsageError naming the choices when `name` is none of E's names.
template <typename E>
E parse_name(std::string_view name) {
  return name_table(E{}).parse(name);
}

template <typename E>
std::string name_of(E value) {
  return std::string(name_table(value).name(value));
}

template <typename E>
std::vector<std::string> canonical_names() {
  return name_table(E{}).canonical();
}

}  // namespace mlt
