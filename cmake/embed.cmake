# Embeds data files into the binary (cmake -P): writes OUT, a C file with one
# byte array per file and a table of them, so the binary needs no source tree.
#   cmake -DFILES=<glob> -DPREFIX=<symbol prefix> -DHEADER=<header> [-DKEY=NAME_WE]
#         -DOUT=generated/<prefix>s.c -P cmake/embed.cmake
# defines, as HEADER declares them:
#   const struct PREFIX PREFIXs[] = {{key, text, length}, ..., {0, 0, 0}};
#   const unsigned PREFIX_count;
# key: the file's name (KEY=NAME) or its name without the extension (KEY=NAME_WE).
# Used for the rule pages (rules/docs/*.md, src/output/ruledoc.h) and the library
# models (rules/models/*.yml, src/model/model_files.h).
if(NOT KEY)
  set(KEY NAME)
endif()
file(GLOB files ${FILES})
list(SORT files)
get_filename_component(dir ${FILES} DIRECTORY)
get_filename_component(pattern ${FILES} NAME)
string(REPLACE "*" "<name>" pattern "${pattern}")
set(body "/* Generated from ${dir}/${pattern} by cmake/embed.cmake. Do not edit. */\n#include \"${HEADER}\"\n\n")
set(table "")
set(i 0)
foreach(f ${files})
  get_filename_component(key ${f} ${KEY})
  file(READ ${f} hex HEX)
  string(LENGTH "${hex}" hexlen)
  math(EXPR len "${hexlen} / 2")
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  string(APPEND body "static const char ${PREFIX}_${i}[] = {${bytes}0x00};\n")
  string(APPEND table "\t{\"${key}\", ${PREFIX}_${i}, ${len}},\n")
  math(EXPR i "${i} + 1")
endforeach()
string(APPEND body "\nconst struct ${PREFIX} ${PREFIX}s[] = {\n${table}\t{0, 0, 0},\n};\nconst unsigned ${PREFIX}_count = ${i};\n")
# write only when changed, so an unchanged file does not relink everything
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT "${old}" STREQUAL "${body}")
  file(WRITE ${OUT} "${body}")
endif()
