"""The numba cache folder follows the kernels' sources, so a stale kernel is never loaded."""

from __future__ import annotations

from pathlib import Path

from samuel.jit import cache_directory


def test_the_cache_folder_changes_with_any_kernel_module_and_only_with_them(tmp_path):
    package = tmp_path / "package"
    (package / "sub").mkdir(parents=True)
    kernel_module = package / "sub" / "kernels.py"
    kernel_module.write_text("from samuel.jit import kernel\n\n@kernel\ndef f(x):\n    return x\n")
    other = package / "cli.py"
    other.write_text("print('hello')\n")
    root = Path("/cache")
    first = cache_directory(package, root)
    assert first.parent == root
    other.write_text("print('hello again')\n")
    assert cache_directory(package, root) == first  # not a kernel module
    kernel_module.write_text(kernel_module.read_text().replace("return x", "return x + 1"))
    assert cache_directory(package, root) != first
