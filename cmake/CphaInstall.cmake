# Install helpers: every program, agent, example and unit goes where a Debian
# package would put it, and is recorded so tests/install can check the layout.
set_property(GLOBAL PROPERTY CPHA_INSTALLED_FILES "")

function(cpha__record path)
	set_property(GLOBAL APPEND PROPERTY CPHA_INSTALLED_FILES "${path}")
endfunction()

# A daemon: /usr/sbin/NAME
function(cpha_install_daemon target)
	install(TARGETS ${target} RUNTIME DESTINATION ${CMAKE_INSTALL_SBINDIR})
	cpha__record("${CMAKE_INSTALL_SBINDIR}/$<TARGET_FILE_NAME:${target}>")
endfunction()

# A user command: /usr/bin/NAME
function(cpha_install_command target)
	install(TARGETS ${target} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
	cpha__record("${CMAKE_INSTALL_BINDIR}/$<TARGET_FILE_NAME:${target}>")
endfunction()

# An OCF resource agent: /usr/lib/ocf/resource.d/cpha/NAME
function(cpha_install_ocf_agent target name)
	install(PROGRAMS $<TARGET_FILE:${target}> DESTINATION ${CPHA_OCF_DIR} RENAME ${name})
	cpha__record("${CPHA_OCF_DIR}/${name}")
endfunction()

# A man page: share/man/manN/PAGE, N being the page's last extension
function(cpha_install_man page)
	get_filename_component(name ${page} NAME)
	get_filename_component(ext ${page} LAST_EXT)
	string(SUBSTRING ${ext} 1 1 section)
	install(FILES ${page} DESTINATION ${CMAKE_INSTALL_MANDIR}/man${section})
	cpha__record("${CMAKE_INSTALL_MANDIR}/man${section}/${name}")
endfunction()

# An example configuration file: /etc/SUBDIR/NAME (never overwritten by hand
# edits in a package; here it is simply installed)
function(cpha_install_config file subdir)
	install(FILES ${file} DESTINATION ${CPHA_SYSCONF_DIR}/${subdir})
	get_filename_component(name ${file} NAME)
	cpha__record("${CPHA_SYSCONF_DIR}/${subdir}/${name}")
endfunction()

# A systemd unit: lib/systemd/system/NAME
function(cpha_install_unit file)
	install(FILES ${file} DESTINATION ${CPHA_SYSTEMD_UNIT_DIR})
	get_filename_component(name ${file} NAME)
	cpha__record("${CPHA_SYSTEMD_UNIT_DIR}/${name}")
endfunction()

# A data file for other programs (Prometheus rules, a Grafana dashboard):
# share/cpha/NAME
function(cpha_install_data file)
	install(FILES ${file} DESTINATION ${CMAKE_INSTALL_DATADIR}/cpha)
	get_filename_component(name ${file} NAME)
	cpha__record("${CMAKE_INSTALL_DATADIR}/cpha/${name}")
endfunction()

# Write the list of recorded files for tests/install (call once, at the end).
function(cpha_write_install_manifest)
	get_property(files GLOBAL PROPERTY CPHA_INSTALLED_FILES)
	string(REPLACE ";" "\n" text "${files}")
	file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/install-manifest.txt CONTENT "${text}\n")
endfunction()
