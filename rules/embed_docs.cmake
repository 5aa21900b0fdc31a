# Generates rule_docs.h: RuleDocumentation(id) returns the page rules/docs/<id>.md.
# Run as: cmake -DDOCS_DIR=... -DOUT=... -P embed_docs.cmake
file(GLOB pages "${DOCS_DIR}/*.md")
list(SORT pages)
set(body "// Generated from rules/docs/*.md by rules/embed_docs.cmake. Do not edit.\n#pragma once\n#include <string_view>\nnamespace streamcheck::rules {\ninline std::string_view RuleDocumentation(std::string_view id) {\n")
foreach(page ${pages})
  get_filename_component(id "${page}" NAME_WE)
  file(READ "${page}" text)
  # Raw string literal; the delimiter cannot appear in Markdown we write.
  string(APPEND body "  if (id == \"${id}\") return R\"scdoc(${text})scdoc\";\n")
endforeach()
string(APPEND body "  return {};\n}\n}  // namespace streamcheck::rules\n")
file(WRITE "${OUT}.tmp" "${body}")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${OUT}.tmp" "${OUT}")
