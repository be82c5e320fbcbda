; depgraph — Python patterns for the extraction stage (analyzer/extract/python.py).
; Capture names are the contract with the extractor; keep them stable.

; Every import statement, wherever it stands (module level, function body, if/try blocks).
(import_statement) @import
(import_from_statement) @import

; Names and attribute chains read by code. The extractor keeps the head of each chain
; (`a` in `a.b.c`) and climbs to the longest dotted chain from there.
(identifier) @name

; What may name a method (the extractor's member uses): each attribute's name (`b` in `a.b`),
; and a call of an attribute enumerator (`dir(x)`, `vars(x)`, `inspect.getmembers` imported
; bare), which may reach any of them.
(attribute attribute: (identifier) @name.attribute)
(call function: (identifier) @name.enumerator
  (#any-of? @name.enumerator "dir" "vars" "getmembers"))

; Comments: taken out of the code the early cut-off's digest holds
; (analyzer/extract/python_digest.py).
(comment) @comment

; Plain string literals (f-strings are filtered out by the extractor: they interpolate).
(string) @string

; Integer literals: the extractor keeps those handed on as a value (`fa_version = 3`).
(integer) @integer

; Calls with a dotted callee: importlib.import_module("x"), __import__("x"),
; pkgutil.iter_modules(...), pkgutil.walk_packages(...).
(call
  function: [(identifier) (attribute)] @call.function
  arguments: (argument_list) @call.arguments)

; `__all__ = [...]` / `__all__ += [...]` at any level; the extractor keeps module-level ones.
(assignment
  left: (identifier) @all.name (#eq? @all.name "__all__")
  right: [(list) (tuple)] @all.value)
(augmented_assignment
  left: (identifier) @all.name (#eq? @all.name "__all__")
  right: [(list) (tuple)] @all.value)

; Guards for folding (analyzer/analysis/guards.py): if statements, conditional expressions,
; try statements (the extractor keeps those catching ImportError).
(if_statement) @branch.if
(conditional_expression) @branch.ifexp
(try_statement) @branch.try

; Names a function rebinds with `global NAME`: module flags that are not constant.
(global_statement (identifier) @global.name)

; Assignments to attributes (`self.use_nsa = ...`) and names (class bodies): what may set an
; instance attribute, for folding `if self.use_nsa:` (analyzer/decide/guards_eval.py).
(assignment left: [(attribute) (identifier)] @assign.target)
(augmented_assignment left: [(attribute) (identifier)] @assign.target)

; Dict displays anywhere (function bodies too, `defaultdict(f, {...})`): string-keyed ones may
; be instances of a profile's registry (analyzer/decide/registries.py).
(dictionary) @dict

; List, tuple and set displays anywhere: those of attribute chains only (`[Backend.FA3,
; Backend.TRITON]`, `x in (Backend.FA3, Backend.FA)`) may list an enum registry's members.
[(list) (tuple) (set)] @collection

; Comparisons outside conditions (`is_rocm_aiter=(backend == Backend.ROCM_FA)`): one with a
; dropped enum member folds to its value (analyzer/decide/registries.py).
(comparison_operator) @comparison
