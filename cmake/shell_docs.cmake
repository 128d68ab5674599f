# Shell completions (bash, zsh, fish) and the man page, napkin.1: written at build time by the
# napkin just built, from its own command table (src/cli/completions.h), so they always match the
# binary; installed where bash-completion, zsh, fish and man look for them.
#
# Included at the end of the top-level CMakeLists.txt. In script mode (cmake -P, run by the
# custom command below) it writes the four files.
if(CMAKE_SCRIPT_MODE_FILE)
  # -DNAPKIN=<the binary> -DOUT=<build dir>
  file(MAKE_DIRECTORY ${OUT}/completions)
  foreach(job "man;napkin.1" "completions;bash;completions/napkin" "completions;zsh;completions/_napkin"
              "completions;fish;completions/napkin.fish")
    list(POP_BACK job file)
    execute_process(COMMAND ${NAPKIN} ${job} OUTPUT_FILE ${OUT}/${file}.tmp RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "napkin ${job} failed (${rc})")
    endif()
    file(RENAME ${OUT}/${file}.tmp ${OUT}/${file})
  endforeach()
  return()
endif()

option(NAPKIN_SHELL_DOCS "Generate the shell completions and man page with the built napkin" ON)
if(NOT NAPKIN_SHELL_DOCS OR CMAKE_CROSSCOMPILING)
  return()
endif()
include(GNUInstallDirs)
set(NAPKIN_SHELL_DOCS_FILES
  ${PROJECT_BINARY_DIR}/napkin.1
  ${PROJECT_BINARY_DIR}/completions/napkin
  ${PROJECT_BINARY_DIR}/completions/_napkin
  ${PROJECT_BINARY_DIR}/completions/napkin.fish)
add_custom_command(
  OUTPUT ${NAPKIN_SHELL_DOCS_FILES}
  COMMAND ${CMAKE_COMMAND} -DNAPKIN=$<TARGET_FILE:napkin> -DOUT=${PROJECT_BINARY_DIR}
          -P ${CMAKE_CURRENT_LIST_FILE}
  DEPENDS napkin ${CMAKE_CURRENT_LIST_FILE}
  COMMENT "napkin: shell completions and napkin.1 from the command table"
  VERBATIM)
add_custom_target(napkin_shell_docs ALL DEPENDS ${NAPKIN_SHELL_DOCS_FILES})
# The tests compare these files with what the binary prints (tests/completions/run.sh).
if(TARGET napkin_tests)
  add_dependencies(napkin_tests napkin_shell_docs)
endif()

install(FILES ${PROJECT_BINARY_DIR}/napkin.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${PROJECT_BINARY_DIR}/completions/napkin
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
install(FILES ${PROJECT_BINARY_DIR}/completions/_napkin DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/site-functions)
install(FILES ${PROJECT_BINARY_DIR}/completions/napkin.fish
        DESTINATION ${CMAKE_INSTALL_DATADIR}/fish/vendor_completions.d)
