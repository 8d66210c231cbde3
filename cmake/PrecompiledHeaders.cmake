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
