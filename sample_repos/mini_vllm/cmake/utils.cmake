# Creates a Python extension module target (vLLM's define_extension_target, cut down).
function (define_extension_target MOD_NAME)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "WITH_SOABI" "DESTINATION" "SOURCES;INCLUDE_DIRECTORIES")
  Python_add_library(${MOD_NAME} MODULE WITH_SOABI "${ARG_SOURCES}")
  target_include_directories(${MOD_NAME} PRIVATE csrc ${ARG_INCLUDE_DIRECTORIES})
  target_link_libraries(${MOD_NAME} PRIVATE torch CUDA::cudart)
  install(TARGETS ${MOD_NAME} LIBRARY DESTINATION ${ARG_DESTINATION} COMPONENT ${MOD_NAME})
endfunction()
