# The families (four in five of src/'s files) each spent half their compile time parsing the standard
# headers they all include through core/config.hpp; one precompiled header halves that. The JSON
# library stays out of it and out of config.hpp (json_fwd.hpp only): precompiled or not, its pending
# template instantiations cost every file that includes it about 1 s of CPU (g++ 12 -ftime-report on
# an empty file: 1.0 s with the JSON library in the header, 0.13 s without). Only headers from
# outside src/ go in it, so a file that forgets one of its own project includes still fails to build.
# ccache serves such compiles only with sloppiness pch_defines,time_macros.
option(NEURARCH_PCH "Precompile the external headers that every family file includes" ON)

function(neurarch_precompile target)
  if(NEURARCH_PCH)
    target_precompile_headers(${target} PRIVATE <algorithm> <functional> <map> <memory> <optional> <string>
                              <string_view> <vector>)
  endif()
endfunction()

# The folders above the report (the verifier, the renderers, the pipeline, the validators, the tracker,
# the server and the command line) read and write JSON in almost every file: there the JSON library,
# fmt and <filesystem> are precompiled once and the one header is shared by every such folder (their
# compile flags are the same). Measured on g++ 12 -O3: 0.8-1.8 s less per file (src/track/views.cpp 6.0 s
# -> 5.2 s, src/render/json.cpp 10.4 s -> 8.5 s); a file that does not use JSON would pay 0.2 s for it,
# so the lower folders stay without.
function(neurarch_precompile_json first)
  if(NOT NEURARCH_PCH)
    return()
  endif()
  target_precompile_headers(${first} PRIVATE <nlohmann/json.hpp> <fmt/format.h> <filesystem> <algorithm>
                            <functional> <map> <memory> <optional> <string> <string_view> <vector>)
  foreach(target IN LISTS ARGN)
    target_precompile_headers(${target} REUSE_FROM ${first})
  endforeach()
endfunction()
