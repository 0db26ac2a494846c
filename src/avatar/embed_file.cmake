# cmake -DINPUT=file.json -DOUTPUT=file.cc -DSYMBOL=Name -P embed_file.cmake
# Writes a .cc defining `const char* lingcast::rig::SYMBOL()` that returns the
# file's bytes, NUL-terminated: the built-in rig travels inside the binary, so
# no install path is needed. Bytes, not a string literal: no length limit.
file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" hex_length)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
get_filename_component(name "${INPUT}" NAME)
file(WRITE "${OUTPUT}.tmp" "// Generated at build time from ${name} by embed_file.cmake: do not edit.\n"
     "namespace lingcast::rig {\nnamespace {\nconst char kBytes[] = {\n${bytes}0x00};\n}  // namespace\n"
     "const char* ${SYMBOL}() { return kBytes; }\n}  // namespace lingcast::rig\n")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
