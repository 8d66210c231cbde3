#pragma once
// nlohmann::json parses deep nesting iteratively but prints, compares and copies it recursively, so
// 500,000 nested brackets in a request body would overflow a thread's stack later. Untrusted JSON text
// is measured with this before it is parsed.
#include <string_view>

namespace neurarch {

/// True when arrays and objects in `text` nest deeper than `max_depth` (brackets inside strings do not
/// count). One pass, no allocation; meant for text about to be parsed, so it does not validate.
bool nested_deeper_than(std::string_view text, int max_depth);

}  // namespace neurarch
