# cmake -DINPUT=patches.fatbin -DOUTPUT=image.cpp -P embed_fatbin.cmake:
# the fatbin's bytes as the array precise_patch_image.h declares.
file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" digits)
math(EXPR size "${digits} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
file(WRITE "${OUTPUT}.tmp" "// Generated from ${INPUT} by embed_fatbin.cmake.\n"
  "#include \"tracer/sanitizer/patches/precise_patch_image.h\"\n"
  "namespace streamcheck::tracer::precise {\n"
  "alignas(64) extern const unsigned char kPrecisePatchImage[] = {\n${bytes}};\n"
  "extern const size_t kPrecisePatchImageSize = ${size};\n"
  "}  // namespace streamcheck::tracer::precise\n")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
