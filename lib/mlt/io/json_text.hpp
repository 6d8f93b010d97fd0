// JSON as mlt writes it (model headers, --json reports, --log-json lines): labels and
// column names come from the user's data and need not be valid UTF-8, which JSON
// requires; an invalid byte is written as U+FFFD instead of failing the whole output.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace mlt::io {

// Json: nlohmann::json, or nlohmann::ordered_json where the keys keep their order.
template <class Json>
std::string json_text(const Json& j, int indent = -1) {
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace mlt::io
