"""How the engines' functions compile: numba, cached on disk, each with the wrappers it needs.

numba compiles a jitted function with two wrappers by default: one that lets Python call it
(arguments unboxed from Python objects), and one that lets C call it by address. The engines'
functions are called from compiled code, the kernels and a few others also from Python; none by
address. Each wrapper is typed, optimised and turned into machine code with its function, at
every cold start, so they are compiled only where they are used:

- `entry_point`: a function Python calls (a kernel, a hook that Python asks such as
  `round_of`, a function the game's `load_game` calls), with the wrapper for Python;
- `compiled`: a function only compiled code calls, without wrappers (they cost Snap's cold first
  step about an eighth of its seconds: docs/speed.md, "Cold start"), and without machine code of
  its own (below). Calling it from Python raises a `TypeError` naming it (without the guard the
  call would crash the interpreter);
- `inlined`: `compiled`, and compiled into each caller (numba's `inline="always"`). numba
  turns each function it compiles into machine code together with every function it calls,
  optimised again, so a function whose own code is a few calls (a game's `apply`, the drivers'
  `deal`) costs as much again as all it calls; inlined, it costs its own code in each caller.
  Inline only such thin functions: a large one is typed again in every caller;
- `jitable`: a plain Python function (a heuristic's strategy, which runs without numba too) that
  compiled code may call, compiled as `compiled` is where it is called. numba compiles a function
  again for each set of options its callers have, so every function here has `compiled`'s
  options (a strategy compiled twice cost Snap's search about 0.8 s);
- `where_rules_have`: a function compiled by the type of the rules' record: where the record
  lacks a field, another function (or nothing) in its place. numba compiles both sides of a
  branch on a value and only one of a branch on a type, so Snap's standard game, whose record
  lacks `variant`, compiles none of the variants' code (its cold first step 0.76×).

Every function is cached (numba's `cache=True`), beside its module or in `NUMBA_CACHE_DIR`,
stamped with every source file of the package (`stamped_with_package`): numba's own stamp is the
function's file alone, and a kernel cached before a change to a function it calls in another file
loaded without the change.
One process at a time compiles into a cache or loads from it (`one_process_a_cache`): numba
numbers a function's cached signatures from its index without a lock, so two processes compiling
one function for two signatures at once can leave an index that points at the other's code,
which loads and then aborts in LLVM. Every process that shares a cache (the workers of a test
run, a user's parallel jobs) compiles each function once: the first compiles, the others wait and
load it.

numba turns every function it compiles into machine code as soon as it is compiled, optimised
with all it calls linked in, but only a function that Python (or C) calls by address runs its
own machine code: a compiled caller runs the copy of the function that numba links into the
caller's code and optimises there again. So the functions without wrappers (`compiled`,
`inlined`, `where_rules_have`, `jitable`) are compiled into a `LinkedOnlyLibrary`: their own code
optimised, and linked with all it calls into each caller, which numba optimises whole and turns
into machine code; no machine code of their own (Snap's cold first step 0.9× for that, 0.9× again
for optimising their own code alone: docs/speed.md, "Cold start"). Its only symbols in numba's
engine are the function's environment pointers, which numba fills in for every function, so that
the copies linked into callers find theirs as before; asked for the address of one of its
functions, it raises. It is cached as LLVM bitcode, with all it calls, and a cached one loads as
one again.

numba writes out a record type's text field by field, nested records included, each time it
prints the type, and it prints the types of a function's arguments at every pass of every
compile (its compile events carry them as text): thousands of times a cold start, for the
engines' records of 10–45 fields with the views' layouts nested in them. A record type is keyed
by its fields and never changes, so `remembered_record_text` keeps each one's text once written
(Snap's cold first step 0.95×: docs/speed.md, "Cold start").

The kernels take the arrays Python passes them `borrowed`: numba counts references to an array
that came from Python, and does so around every view taken of it (`observations[i]`, a record's
field), each count an atomic add or subtract, which on x86 waits for every store before it to
reach the cache. In a kernel that writes views across a batch bigger than the cache, those
waits were a third of a step (Snailed It! at 4,096 games). Python holds the arrays for the
whole call, so the kernels need no count of their own. Their scratch arrays (a step's stock of
points, its tick of actions) are on the stack, `stack_zeros`, with no count either (7% of a step
counted references to them: docs/speed.md).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import inspect
import tempfile
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar, cast

import llvmlite.binding as llvm
import numpy as np
from llvmlite import ir
from numba.core import cgutils, config, types
from numba.core.caching import CompileResultCacheImpl, FunctionCache
from numba.core.codegen import JITCodeLibrary
from numba.core.compiler import Compiler
from numba.core.compiler_lock import global_compiler_lock
from numba.core.registry import CPUDispatcher
from numba.extending import intrinsic, overload, register_jitable

F = TypeVar("F", bound=Callable[..., Any])

NO_CFUNC_WRAPPER = {"nopython": True, "no_cfunc_wrapper": True}
"""numba's options of every function: compiled whole (nopython), with no wrapper for C."""

RECORD_TEXT: weakref.WeakKeyDictionary[types.Record, str] = weakref.WeakKeyDictionary()
"""The text of each numba record type written so far (`remembered_record_text`)."""
WRITTEN_RECORD_TEXT: Callable[[types.Record], str] = types.Record.__repr__
"""numba's own writer of a record type's text."""


def remembered_record_text(record: types.Record) -> str:
    """`record`'s text as numba writes it, written once a type (the module docstring). Records
    equal to numba are one type object (numba interns its types), so the text kept for one is
    the text of every equal one."""
    text = RECORD_TEXT.get(record)
    if text is None:
        text = RECORD_TEXT[record] = WRITTEN_RECORD_TEXT(record)
    return text


types.Record.__repr__ = remembered_record_text  # type: ignore[method-assign,assignment]


class LinkedOnlyLibrary(JITCodeLibrary):
    """numba's library of a function without wrappers: its own code optimised, then linked with
    all it calls into its callers, which numba optimises and turns into machine code with it; not
    turned into machine code on its own (the module docstring)."""

    def finalize(self) -> None:
        """numba's finalisation with nothing linked in: its own code optimised alone."""
        callees, self._linking_libraries = self._linking_libraries, []
        try:
            super().finalize()
        finally:
            self._linking_libraries = callees
        for library in callees:  # what numba runs again when it loads a cached caller
            self._reload_init.update(library._reload_init)

    def _finalize_final_module(self) -> None:
        self._finalize_dynamic_globals()
        environments = llvm.parse_assembly(
            "\n".join(
                str(variable)
                for variable in self._final_module.global_variables
                if variable.linkage == llvm.Linkage.common  # numba's environment pointers
            )
        )
        environments.triple = self._final_module.triple
        environments.data_layout = self._final_module.data_layout
        self._codegen._add_module(environments)
        self._codegen._engine.finalize_object()
        self._finalized = True

    def _get_module_for_linking(self) -> Any:
        """Its code with all it calls, each function `linkonce_odr` (numba's linking rule)."""
        self._ensure_finalized()
        if self._shared_module is None:
            module = self._final_module.clone()
            for library in dict.fromkeys(self._linking_libraries):
                module.link_in(library._get_module_for_linking(), preserve=True)
            for function in module.functions:
                if not function.is_declaration and function.linkage == llvm.Linkage.external:
                    function.linkage = "linkonce_odr"
            self._shared_module = module
        return self._shared_module

    def get_pointer_to_function(self, name: str) -> int:
        """0 for a function it does not define (numba asks for the wrapper for Python);
        `RuntimeError` for one it does, which has no machine code of its own."""
        self._ensure_finalized()
        try:
            function = self._final_module.get_function(name)
        except NameError:
            return 0
        if function.is_declaration:
            return 0
        raise RuntimeError(
            f"{self.name} is compiled into its callers only (snail_envs.batched.compiling): it "
            "has no address of its own"
        )

    def serialize_using_object_code(self) -> tuple[str, str, bytes]:
        """Its code with all it calls, as bitcode (numba caches object code and bitcode)."""
        return (self.name, "bitcode", self._get_module_for_linking().as_bitcode())


class LinkedOnlyCompiler(Compiler):
    """numba's compiler, compiling into a `LinkedOnlyLibrary`."""

    def compile_extra(self, func: Callable[..., Any]) -> Any:
        if self.state.library is None:
            codegen = self.state.targetctx.codegen()
            self.state.library = LinkedOnlyLibrary(codegen, func.__qualname__)
        return super().compile_extra(func)


PACKAGE = Path(__file__).resolve().parents[1]
"""snail_envs' folder: numba caches its functions beside their modules, unless `NUMBA_CACHE_DIR`
says where."""


@functools.cache
def package_sources_hash() -> str:
    """A hash of every source file of snail_envs (their paths and contents), once a process; empty
    where the package is not a folder of files (a zip)."""
    if not PACKAGE.is_dir():
        return ""
    sources = hashlib.sha256()
    for path in sorted(PACKAGE.rglob("*.py")):
        sources.update(path.relative_to(PACKAGE).as_posix().encode() + b"\0")
        sources.update(path.read_bytes() + b"\0")
    return sources.hexdigest()


def stamped_with_package(locator: type[Any]) -> type[Any]:
    """numba's cache `locator`, whose stamp of a function's source also covers every source file
    of snail_envs. numba stamps a cached function with its own file alone, so a kernel cached
    before a change to a function it calls in another file (every kernel: they are filed under
    the game's module, and call `core`, `chance`, the drivers) would load as it was, the change
    silently left out. With the package's sources in the stamp, a change to any of them compiles
    every function again, as a cache is only right for the sources it was compiled from."""

    def get_source_stamp(self: Any) -> Any:
        return (locator.get_source_stamp(self), package_sources_hash())

    return type(
        f"PackageStamped{locator.__name__}", (locator,), {"get_source_stamp": get_source_stamp}
    )


class PackageCacheImpl(CompileResultCacheImpl):
    """numba's cache of compile results, stamped with the package's sources
    (`stamped_with_package`)."""

    _locator_classes = [  # noqa: RUF012 (numba declares it on instances, reads it on the class)
        stamped_with_package(locator) for locator in CompileResultCacheImpl._locator_classes
    ]


class PackageCache(FunctionCache):
    """numba's cache of a function, stamped with the package's sources."""

    _impl_class = PackageCacheImpl


class LinkedOnlyCacheImpl(PackageCacheImpl):
    """numba's cache of compile results, loading a function cached as bitcode (a
    `LinkedOnlyLibrary`'s) into a `LinkedOnlyLibrary` again."""

    def rebuild(self, target_context: Any, payload: Any) -> Any:
        _, kind, _ = payload[0]  # the library's name, kind and code
        if kind != "bitcode":  # cached before the library was linked-only: object code
            return super().rebuild(target_context, payload)
        codegen = target_context.codegen()
        codegen._library_class = LinkedOnlyLibrary  # numba holds its compiler lock here
        try:
            return super().rebuild(target_context, payload)
        finally:
            del codegen._library_class


class LinkedOnlyCache(PackageCache):
    """numba's cache of a function compiled into a `LinkedOnlyLibrary`, stamped with the
    package's sources."""

    _impl_class = LinkedOnlyCacheImpl


CACHE_HELD = [0]
"""How many of this process's compiles are under way, nested (`one_process_a_cache`)."""


def cache_lock_path() -> Path:
    """The lock file of the cache that numba compiles into now: one for each `NUMBA_CACHE_DIR`,
    and one for the caches beside this checkout's modules, in the system's temporary folder."""
    cache = getattr(config, "CACHE_DIR", "") or str(PACKAGE)  # numba sets it from its environment
    key = hashlib.sha1(cache.encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"snail_envs-numba-{key}.lock"


@contextlib.contextmanager
def one_process_a_cache() -> Iterator[None]:
    """Hold the cache's lock file (`cache_lock_path`) for the outermost compile of this process,
    so that no other process compiles into the cache or loads from it meanwhile (the module
    docstring). Under numba's own compiler lock, which orders the threads of a process."""
    with global_compiler_lock, contextlib.ExitStack() as held:
        if not CACHE_HELD[0]:
            hold_cache_lock(held)
        CACHE_HELD[0] += 1
        try:
            yield
        finally:
            CACHE_HELD[0] -= 1


def hold_cache_lock(held: contextlib.ExitStack) -> None:
    """Wait for the cache's lock file and hold it until `held` closes; where the system has no
    `fcntl` (Windows) or the file cannot be opened, nothing: numba's own behaviour."""
    try:
        import fcntl
    except ImportError:
        return
    try:
        lock = held.enter_context(cache_lock_path().open("ab"))
    except OSError:
        return
    fcntl.flock(lock, fcntl.LOCK_EX)
    held.callback(fcntl.flock, lock, fcntl.LOCK_UN)


class OneProcessACache(CPUDispatcher):
    """numba's dispatcher, compiling and loading its cached code under `one_process_a_cache`,
    its cache stamped with the package's sources (`PackageCache`)."""

    def enable_caching(self) -> None:
        self._cache = PackageCache(self.py_func)

    def compile(self, sig: Any) -> Any:
        with one_process_a_cache():
            return super().compile(sig)


class CompiledOnly(OneProcessACache):
    """A numba dispatcher whose function has no wrapper for Python and no machine code of its
    own: compiled code calls it, and a call from Python raises `TypeError` (numba would jump to
    a wrapper that does not exist)."""

    def __init__(
        self, py_func: Callable[..., Any], local_types: Any = None, targetoptions: Any = None
    ) -> None:
        """numba's dispatcher, compiling with `LinkedOnlyCompiler` (the arguments in the order
        numba passes them when it unpickles one)."""
        super().__init__(py_func, local_types, targetoptions, pipeline_class=LinkedOnlyCompiler)

    def enable_caching(self) -> None:
        self._cache = LinkedOnlyCache(self.py_func)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(
            f"{self.py_func.__module__}.{self.py_func.__qualname__} is compiled to be called from "
            "compiled code only (snail_envs.batched.compiling.compiled); compile it with "
            "entry_point to call it from Python"
        )


def by_type(function: F) -> F:
    """`function`, whose code is its numba overloads, one for each type of its arguments
    (`numba.extending.overload(function)`): a call from Python raises `TypeError` naming it."""

    @functools.wraps(function)
    def compiled_code_only(*args: Any, **kwargs: Any) -> Any:
        raise TypeError(
            f"{function.__module__}.{function.__qualname__} is compiled by the types of its "
            "arguments, for compiled code only (snail_envs.batched.compiling.by_type)"
        )

    return cast(F, compiled_code_only)


WITHOUT_WRAPPERS: Any = {
    "no_cfunc_wrapper": True,
    "no_cpython_wrapper": True,
    "pipeline_class": LinkedOnlyCompiler,
}
"""numba's options of the functions compiled for compiled callers only by numba's `overload`
(`where_rules_have`, `jitable`): no wrappers, no machine code of their own."""


def where_rules_have(
    field: str, otherwise: Callable[..., Any] | None = None
) -> Callable[[Callable[..., Any]], Any]:
    """Decorator: `function(g, rules, ...)` compiled where the type of `rules`, a record, has
    `field`, and `otherwise` (a function with the same parameters) in its place where it has
    not; with no `otherwise`, a function that returns nothing compiles to nothing there. numba
    types and emits both sides of a branch on a record's value, and everything they call; a
    branch on its type compiles one side only, so the kernels of the rules without `field`
    compile none of `function`'s code, nor what it calls. The chosen function is the overload's
    implementation itself (no wrapper of its own), compiled without numba's wrappers into the
    kernels that call it and cached with them; a call from Python raises (`by_type`)."""

    def gate(function: Callable[..., Any]) -> Any:
        parameters = inspect.signature(function)
        gated = by_type(function)

        def nothing(*args: Any) -> None:
            return None

        # numba holds an overload's implementation to the parameters of its typing function:
        # both take `function`'s
        nothing.__signature__ = parameters  # type: ignore[attr-defined]

        def gated_of(*args: Any) -> Any:
            if field in args[1].fields:
                return function
            return nothing if otherwise is None else getattr(otherwise, "py_func", otherwise)

        gated_of.__signature__ = parameters  # type: ignore[attr-defined]
        overload(gated, jit_options=WITHOUT_WRAPPERS)(gated_of)
        return gated

    return gate


def cached(function: Callable[..., Any], kind: type[CPUDispatcher], **options: Any) -> Any:
    """`function` compiled by a numba dispatcher of `kind`, cached, with numba's `options`."""
    dispatcher = kind(function, {}, {**NO_CFUNC_WRAPPER, **options})
    dispatcher.enable_caching()
    return dispatcher


def compiled(function: Callable[..., Any]) -> Any:
    """`function` compiled for compiled callers only (the module docstring)."""
    return cached(function, CompiledOnly, no_cpython_wrapper=True)


def compiled_as(*signatures: str) -> Callable[[Callable[..., Any]], Any]:
    """`compiled`, for the numba `signatures` only, at once (one compile each, not one for each
    constant its callers pass)."""

    def compile_once(function: Callable[..., Any]) -> Any:
        dispatcher = compiled(function)
        for signature in signatures:
            dispatcher.compile(signature)
        dispatcher.disable_compile()
        return dispatcher

    return compile_once


def inlined(function: Callable[..., Any]) -> Any:
    """`function` compiled into each compiled caller (numba's `inline="always"`)."""
    return cached(function, CompiledOnly, no_cpython_wrapper=True, inline="always")


def entry_point(function: Callable[..., Any]) -> Any:
    """`function` compiled for Python callers too (the module docstring)."""
    return cached(function, OneProcessACache)


def jitable(function: F) -> F:
    """`function`, left as it is for Python callers, compiled for compiled callers as
    `compiled` is (numba's `register_jitable`, with `WITHOUT_WRAPPERS`)."""
    register_jitable(**WITHOUT_WRAPPERS)(function)
    return function


def borrowed_typing(typing_context: Any, value: Any) -> Any:
    """The typing and code of `borrowed`."""
    items: Any = value  # a numba tuple type iterates over its items' types
    arrays = list(items) if isinstance(value, types.BaseTuple) else [value]
    if not all(isinstance(array, types.Array) for array in arrays):
        return None

    def without_count(context: Any, builder: Any, array_type: Any, array: Any) -> Any:
        source = context.make_array(array_type)(context, builder, array)
        view = context.make_array(array_type)(context, builder)
        context.populate_array(
            view,
            data=source.data,
            shape=source.shape,
            strides=source.strides,
            itemsize=source.itemsize,
            meminfo=None,
        )
        return view._getvalue()

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        if not isinstance(value, types.BaseTuple):
            return without_count(context, builder, value, args[0])
        views = [
            without_count(context, builder, array, builder.extract_value(args[0], k))
            for k, array in enumerate(arrays)
        ]
        return context.make_tuple(builder, value, views)

    return value(value), codegen


borrowed: Any = intrinsic(borrowed_typing)
"""`borrowed(value)`: `value`, an array or a tuple of arrays, as arrays with no reference to count
(no meminfo): the same data, shape and strides, so that numba's counts around every view of them
test a null pointer and do nothing. Compiled code only, for arrays that outlive the call (a
kernel's arguments, which Python holds): never for an array the kernel allocates, and never
returned or kept (the module docstring)."""


def constant_value(value: Any) -> int | None:
    """The integer `value` holds where the compiled code makes it of constants alone (a constant,
    or an item of a tuple of constants: `constant_item`); None otherwise."""
    if isinstance(value, ir.Constant):
        return int(value.constant)
    if isinstance(value, ir.ExtractValue) and len(value.indices) == 1:
        return constant_item(value.operands[0], value.indices[0])
    return None


def constant_item(tuple_value: Any, index: int) -> int | None:
    """Item `index` of a tuple that the compiled code builds by inserting items one by one into
    an undefined one, where that item is a constant (`constant_value`); None otherwise."""
    while isinstance(tuple_value, ir.InsertValue):
        if tuple_value.indices == [index]:
            return constant_value(tuple_value.operands[1])
        tuple_value = tuple_value.operands[0]
    return None


def stack_zeros_typing(typing_context: Any, shape: Any, dtype: Any) -> Any:
    """The typing and code of `stack_zeros`."""
    sizes: Any = shape  # a numba tuple type iterates over its items' types
    dims = list(sizes) if isinstance(shape, types.BaseTuple) else [shape]
    if not all(isinstance(size, types.Integer) for size in dims):
        return None
    if not isinstance(dtype, types.NumberClass):
        return None
    array_type = types.Array(dtype.dtype, len(dims), "C")

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        if isinstance(shape, types.BaseTuple):
            found = [constant_item(args[0], k) for k in range(len(dims))]
        else:
            found = [constant_value(args[0])]
        counts = [count for count in found if count is not None]
        if len(counts) != len(dims):
            raise TypeError("stack_zeros: the shape must be made of constants of the compiled code")
        element = context.get_data_type(dtype.dtype)
        itemsize = context.get_abi_sizeof(element)
        entries = int(np.prod(counts))
        data = cgutils.alloca_once(builder, element, size=entries)
        cgutils.memset(builder, data, ir.Constant(ir.IntType(64), entries * itemsize), 0)
        strides = [itemsize * int(np.prod(counts[k + 1 :])) for k in range(len(counts))]
        intp = context.get_value_type(types.intp)
        array = context.make_array(array_type)(context, builder)
        context.populate_array(
            array,
            data=data,
            shape=[ir.Constant(intp, count) for count in counts],
            strides=[ir.Constant(intp, stride) for stride in strides],
            itemsize=ir.Constant(intp, itemsize),
            meminfo=None,
        )
        return array._getvalue()

    return array_type(shape, dtype), codegen


stack_zeros: Any = intrinsic(stack_zeros_typing)
"""`stack_zeros(shape, dtype)`: `np.zeros(shape, dtype)` on the stack of the compiled function it
is lowered into (in its entry block), with no reference to count: a kernel's scratch array, which
on the heap would cost an allocation a call and an atomic count around every view of it (the
module docstring). The shape must be made of constants of the compiled code (a module's, not
an argument's); the array lives until that function returns, so it is never returned or kept."""
