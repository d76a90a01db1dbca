# Doxygen's input filter for attnlab's public headers (site/Doxyfile): the headers are commented with
# plain // lines, as the rest of the code is; Doxygen reads only its own markers. This turns, in what
# Doxygen sees (the files themselves are unchanged):
#   the file's opening comment (before #pragma once)   → /// @file and its text
#   a // line on its own                               → ///  (the declaration below it)
#   code; // a trailing comment                        → code; ///< (the member on its line)
BEGIN { in_header = 1 }
/^#pragma once/ { in_header = 0 }
in_header && /^\/\/ ?/ { sub(/^\/\/ ?/, ""); print (NR == 1 ? "/// @file " : "/// ") $0; next }
/^[ \t]*\/\/ / { sub(/\/\/ /, "/// "); print; next }
/[;,{][ \t]+\/\/ / { sub(/[ \t]+\/\/ /, " ///< "); print; next }
{ print }
