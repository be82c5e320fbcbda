FetchContent_Declare(flashmla GIT_REPOSITORY https://github.com/vllm-project/FlashMLA GIT_TAG 692917b)
FetchContent_MakeAvailable(flashmla)

set(FlashMLA_SOURCES ${flashmla_SOURCE_DIR}/csrc/torch_api.cpp ${flashmla_SOURCE_DIR}/csrc/decode.cu)
define_extension_target(
  _flashmla_C
  DESTINATION vllm
  SOURCES ${FlashMLA_SOURCES}
  INCLUDE_DIRECTORIES ${flashmla_SOURCE_DIR}/csrc
  WITH_SOABI)
