# Shared helpers (imitates the define_extension_target of a vLLM-like build).

function(run_python OUT EXPR)
  execute_process(
    COMMAND python -c "${EXPR}"
    OUTPUT_VARIABLE PY_OUT
    OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(${OUT} ${PY_OUT} PARENT_SCOPE)
endfunction()

function(define_ext_target MOD_NAME)
  cmake_parse_arguments(PARSE_ARGV 1 ARG
    ""
    "DESTINATION"
    "SOURCES;INCLUDE_DIRECTORIES;LIBRARIES")

  run_python(SOABI "import sysconfig; print(sysconfig.get_config_var('SOABI'))")

  Python_add_library(${MOD_NAME} MODULE WITH_SOABI "${ARG_SOURCES}")
  target_include_directories(${MOD_NAME} PRIVATE csrc ${ARG_INCLUDE_DIRECTORIES})
  target_compile_definitions(${MOD_NAME} PRIVATE
    "-DTORCH_EXTENSION_NAME=${MOD_NAME}")
  target_link_libraries(${MOD_NAME} PRIVATE torch ${ARG_LIBRARIES})
  install(TARGETS ${MOD_NAME} LIBRARY DESTINATION ${ARG_DESTINATION})
endfunction()
