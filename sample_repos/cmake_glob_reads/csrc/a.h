#pragma once
// a header: csrc/*.cu does not match it
