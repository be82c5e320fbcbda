include(FetchContent)

# flash_mla look-alike: most sources live in the fetched repo
FetchContent_Declare(
    repo-flashmla
    GIT_REPOSITORY https://github.com/example/flashmla-lite
    GIT_TAG        v0.2.0
)
FetchContent_Populate(repo-flashmla)

set(FLASHMLA_SOURCES
    "csrc/flashmla_extension.cc"
    "csrc/flashmla/mla_metadata.cu"
    ${repo-flashmla_SOURCE_DIR}/csrc/python_api.cpp
    ${repo-flashmla_SOURCE_DIR}/csrc/sm90/splitkv_mla.cu
)

Python_add_library(flashmla_ops MODULE USE_SABI ${SKBUILD_SABI_VERSION} WITH_SOABI ${FLASHMLA_SOURCES})
target_include_directories(flashmla_ops PRIVATE
    ${repo-flashmla_SOURCE_DIR}/csrc
    ${CMAKE_CURRENT_LIST_DIR}/../csrc/flashmla
)
target_link_libraries(flashmla_ops PRIVATE ${TORCH_LIBRARIES} c10 cuda)
install(TARGETS flashmla_ops LIBRARY DESTINATION "mini_kernel")
