; depgraph — C/C++/CUDA patterns for the extraction stage (analyzer/extract/cuda.py).
; Capture names are the contract with the extractor; keep them stable.

; #include "x.h" / #include <x.h> / #include MACRO (anywhere, also inside #if blocks).
(preproc_include
  path: (_) @include.path) @include

; Function definitions (incl. templates, methods, out-of-line `A::f`). The extractor walks
; the declarator down to the function_declarator and skips registration-block macros.
(function_definition
  declarator: (_) @function.declarator) @function.definition

; Function declarations (prototypes) at namespace/class/file level; the extractor drops
; local declarations inside function bodies and declarators that are not functions.
(declaration
  declarator: (_) @function.declarator) @function.declaration
(field_declaration
  declarator: (_) @function.declarator) @function.declaration

; Registration blocks: `TORCH_LIBRARY_FRAGMENT(ns, m) { ... }`, `TORCH_LIBRARY_IMPL(ns, K, m)`,
; wrapper macros such as `TORCH_LIBRARY_EXPAND(NAME, m)`, and `PYBIND11_MODULE(name, m)`.
; tree-sitter reads these as a function definition named after the macro.
(function_definition
  declarator: (function_declarator
    declarator: (identifier) @block.macro
    parameters: (parameter_list) @block.params)
  body: (compound_statement) @block.body
  (#match? @block.macro "^(TORCH_LIBRARY[A-Z0-9_]*|PYBIND11_MODULE)$")) @block

; `m.def(...)` / `m.impl(...)` calls; the extractor keeps those whose receiver is the
; module variable of the enclosing registration block.
(call_expression
  function: (field_expression
    argument: (identifier) @call.receiver
    field: (field_identifier) @call.method)
  arguments: (argument_list) @call.args
  (#match? @call.method "^(def|impl)$")) @call
