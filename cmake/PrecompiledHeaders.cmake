# The families (four in five of src/'s files) each spend half their compile time parsing the JSON
# library and the standard headers they all include through core/config.hpp; one precompiled header
# halves that (measured: 2.0 s -> 0.85 s of CPU per family file with g++ 12 -O3). Only headers from
# outside src/ go in it, so a file that forgets one of its own project includes still fails to build.
# ccache serves such compiles only with sloppiness pch_defines,time_macros.
option(NEURARCH_PCH "Precompile the external headers that every family file includes" ON)

function(neurarch_precompile target)
  if(NEURARCH_PCH)
    target_precompile_headers(${target} PRIVATE <nlohmann/json.hpp> <algorithm> <functional> <map> <memory>
                              <optional> <string> <string_view> <vector>)
  endif()
endfunction()
