# Embeds rules/*.md into the binary (cmake -P): writes OUT, a C file with one
# byte array per page, so --explain and the SARIF help need no source tree.
#   cmake -DDOC_DIR=rules -DOUT=generated/rule_docs.c -P embed_docs.cmake
file(GLOB docs ${DOC_DIR}/*.md)
list(SORT docs)
set(body "/* Generated from the rules/ pages by rules/embed_docs.cmake. Do not edit. */\n#include \"ruledoc.h\"\n\n")
set(table "")
set(i 0)
foreach(doc ${docs})
  get_filename_component(slug ${doc} NAME_WE)
  file(READ ${doc} hex HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  string(APPEND body "static const char doc_${i}[] = {${bytes}0x00};\n")
  string(APPEND table "\t{\"${slug}\", doc_${i}},\n")
  math(EXPR i "${i} + 1")
endforeach()
string(APPEND body "\nconst struct rule_doc rule_docs[] = {\n${table}\t{0, 0},\n};\nconst unsigned rule_ndocs = ${i};\n")
# write only when changed, so an unchanged page does not relink everything
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT "${old}" STREQUAL "${body}")
  file(WRITE ${OUT} "${body}")
endif()
