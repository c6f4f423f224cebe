# cmake -DAGENT=... -DXSLTPROC=... -DSTYLESHEET=... -DPAGES=... -DAGENTS=...
#       -DOCFDIR=... -DOUTPUT=.../ocf_cpha_NAME.7 [-DEMULATOR=...] -P ra2man.cmake
#
# One OCF agent's man page from its own meta-data: runs "AGENT meta-data"
# (the XML is kept beside the page, ocf_cpha_NAME.xml) and turns it into
# OUTPUT with ra2man.xsl. A failure or any message on stderr from either
# stops the build; OUTPUT is only ever replaced by a complete page.
foreach(var AGENT XSLTPROC STYLESHEET PAGES AGENTS OCFDIR OUTPUT)
	if(NOT DEFINED ${var})
		message(FATAL_ERROR "ra2man.cmake: -D${var}= is missing")
	endif()
endforeach()

string(REGEX REPLACE "\\.[1-8]$" ".xml" xml "${OUTPUT}")
get_filename_component(dir ${OUTPUT} DIRECTORY)
file(MAKE_DIRECTORY ${dir})
set(tmp "${OUTPUT}.tmp")

# meta-data reads no environment (ocf_main() answers it before it looks at
# any OCF_ variable), so it runs as the build runs it.
execute_process(COMMAND ${EMULATOR} ${AGENT} meta-data
	OUTPUT_FILE ${xml} ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc STREQUAL "0" OR NOT err STREQUAL "")
	message(FATAL_ERROR "${AGENT} meta-data: exit status ${rc}\n${err}")
endif()

# --novalid: ra-api-1.dtd is named by the document but not needed (and
# not fetched: --nonet).
execute_process(COMMAND ${XSLTPROC} --nonet --novalid
	--stringparam ocfdir ${OCFDIR}
	--stringparam agents ${AGENTS}
	--stringparam pages ${PAGES}
	-o ${tmp} ${STYLESHEET} ${xml}
	ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc STREQUAL "0" OR NOT err STREQUAL "")
	file(REMOVE ${tmp})
	message(FATAL_ERROR "xsltproc ${STYLESHEET} ${xml}: exit status ${rc}\n${err}")
endif()
file(RENAME ${tmp} ${OUTPUT})
