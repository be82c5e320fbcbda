; depgraph — CMake patterns for the extraction stage (analyzer/extract/cmake.py).
; Capture names are the contract with the extractor; keep them stable.
; Every command invocation, flow-control commands included: the extractor keeps them in source
; order (if/elseif/else/endif too, for their line ranges) and works out enclosing conditions.

(normal_command (identifier) @command.name) @command
(if_command (if) @command.name) @command
(elseif_command (elseif) @command.name) @command
(else_command (else) @command.name) @command
(endif_command (endif) @command.name) @command
(foreach_command (foreach) @command.name) @command
(endforeach_command (endforeach) @command.name) @command
(while_command (while) @command.name) @command
(endwhile_command (endwhile) @command.name) @command
(function_command (function) @command.name) @command
(endfunction_command (endfunction) @command.name) @command
(macro_command (macro) @command.name) @command
(endmacro_command (endmacro) @command.name) @command
(block_command (block) @command.name) @command
(endblock_command (endblock) @command.name) @command

; Arguments of a command, in order (comments inside argument lists are not captured).
(argument) @argument

; Parse failures: the extractor re-reads these regions with its own tolerant scanner.
(ERROR) @error
