package conformance

import (
	"context"
	"errors"
	"fmt"

	"github.com/bytecodealliance/wasmtime-go/v39"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// wasmABI is the four exports of dist/toolerr.wasm and the linear memory, as
// each runtime calls them; invokeWasm moves one request through them.
type wasmABI interface {
	alloc(size int32) (int32, error)
	free(ptr int32) error
	invoke(ptr, n int32) (int64, error)
	// memory returns the current linear memory (valid until the next call).
	memory() []byte
}

// reqBuf is a request buffer a host keeps across calls: toolerr_alloc once,
// reused while requests fit, replaced by a larger one when they do not. The
// request buffer stays the host's, so one call then crosses the boundary
// twice (toolerr_invoke, toolerr_free of the response) instead of four times.
type reqBuf struct {
	ptr  int32
	size int
}

// invokeWasm copies req into the reusable toolerr_alloc buffer, calls
// toolerr_invoke with length n (len(req) for a well-behaved host), copies the
// response out and frees it, as a host binding does.
func invokeWasm(w wasmABI, buf *reqBuf, req []byte, n uint32) ([]byte, error) {
	if len(req) > buf.size {
		if buf.ptr != 0 {
			if err := w.free(buf.ptr); err != nil {
				return nil, err
			}
			*buf = reqBuf{}
		}
		size := max(len(req), 4096)
		ptr, err := w.alloc(int32(size))
		if err != nil {
			return nil, err
		}
		if ptr == 0 {
			return nil, fmt.Errorf("toolerr_alloc(%d) returned 0", size)
		}
		*buf = reqBuf{ptr: ptr, size: size}
	}
	copy(w.memory()[buf.ptr:], req)
	res, err := w.invoke(buf.ptr, int32(n))
	if err != nil {
		return nil, err
	}
	outPtr, outLen := uint32(uint64(res)>>32), uint32(res)
	mem := w.memory()
	if uint64(outPtr)+uint64(outLen) > uint64(len(mem)) || outLen == 0 {
		return nil, fmt.Errorf("toolerr_invoke returned ptr %d len %d outside memory of %d bytes", outPtr, outLen, len(mem))
	}
	out := append([]byte(nil), mem[outPtr:outPtr+outLen]...)
	return out, w.free(int32(outPtr))
}

// WazeroEngine is dist/toolerr.wasm compiled once by wazero; Instantiate is
// cheap after that.
type WazeroEngine struct {
	rt       wazero.Runtime
	compiled wazero.CompiledModule
}

// NewWazeroEngine compiles wasm with wazero's default (compiler) runtime.
func NewWazeroEngine(wasm []byte) (*WazeroEngine, error) {
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, rt); err != nil {
		return nil, errors.Join(err, rt.Close(ctx))
	}
	compiled, err := rt.CompileModule(ctx, wasm)
	if err != nil {
		return nil, errors.Join(err, rt.Close(ctx))
	}
	return &WazeroEngine{rt: rt, compiled: compiled}, nil
}

// Close releases the runtime and every instance.
func (e *WazeroEngine) Close() error { return e.rt.Close(context.Background()) }

// Instantiate makes a new instance and runs _initialize: no files, no
// environment, no arguments, wazero's default (fake) clocks.
func (e *WazeroEngine) Instantiate() (*Wazero, error) {
	ctx := context.Background()
	mod, err := e.rt.InstantiateModule(ctx, e.compiled, wazero.NewModuleConfig().WithName("").WithStartFunctions("_initialize"))
	if err != nil {
		return nil, err
	}
	w := &Wazero{mod: mod, ctx: ctx, stack: make([]uint64, 2)}
	w.fAlloc, w.fFree, w.fInvoke = mod.ExportedFunction("toolerr_alloc"), mod.ExportedFunction("toolerr_free"), mod.ExportedFunction("toolerr_invoke")
	w.fVersion = mod.ExportedFunction("toolerr_abi_version")
	if w.fAlloc == nil || w.fFree == nil || w.fInvoke == nil || w.fVersion == nil {
		return nil, errors.Join(errors.New("toolerr.wasm lacks a toolerr_* export"), mod.Close(ctx))
	}
	return w, nil
}

// Wazero is one instance of toolerr.wasm under wazero. Not safe for
// concurrent use.
type Wazero struct {
	mod                              api.Module
	ctx                              context.Context
	fAlloc, fFree, fInvoke, fVersion api.Function
	stack                            []uint64
	buf                              reqBuf
}

var _ Target = (*Wazero)(nil)

// Name returns "wazero".
func (w *Wazero) Name() string { return "wazero" }

// Invoke runs req through toolerr_invoke.
func (w *Wazero) Invoke(req []byte) ([]byte, error) {
	return invokeWasm(w, &w.buf, req, uint32(len(req)))
}

// InvokeLen passes n as the length of req (a lying host, for boundary tests).
func (w *Wazero) InvokeLen(req []byte, n uint32) ([]byte, error) {
	return invokeWasm(w, &w.buf, req, n)
}

// ABIVersion calls toolerr_abi_version.
func (w *Wazero) ABIVersion() (uint32, error) {
	err := w.fVersion.CallWithStack(w.ctx, w.stack)
	return uint32(w.stack[0]), err
}

// MemoryBytes is the size of the linear memory in bytes.
func (w *Wazero) MemoryBytes() int { return int(w.mod.Memory().Size()) }

// Close closes the instance.
func (w *Wazero) Close() error { return w.mod.Close(w.ctx) }

func (w *Wazero) alloc(size int32) (int32, error) {
	w.stack[0] = api.EncodeI32(size)
	err := w.fAlloc.CallWithStack(w.ctx, w.stack)
	return api.DecodeI32(w.stack[0]), err
}

func (w *Wazero) free(ptr int32) error {
	w.stack[0] = api.EncodeI32(ptr)
	return w.fFree.CallWithStack(w.ctx, w.stack)
}

func (w *Wazero) invoke(ptr, n int32) (int64, error) {
	w.stack[0], w.stack[1] = api.EncodeI32(ptr), api.EncodeI32(n)
	err := w.fInvoke.CallWithStack(w.ctx, w.stack)
	return int64(w.stack[0]), err
}

func (w *Wazero) memory() []byte {
	m := w.mod.Memory()
	b, _ := m.Read(0, m.Size())
	return b
}

// WasmtimeEngine is dist/toolerr.wasm compiled once by wasmtime.
type WasmtimeEngine struct {
	engine *wasmtime.Engine
	module *wasmtime.Module
	linker *wasmtime.Linker
}

// NewWasmtimeEngine compiles wasm with wasmtime's default configuration.
func NewWasmtimeEngine(wasm []byte) (*WasmtimeEngine, error) {
	engine := wasmtime.NewEngine()
	module, err := wasmtime.NewModule(engine, wasm)
	if err != nil {
		return nil, err
	}
	linker := wasmtime.NewLinker(engine)
	if err := linker.DefineWasi(); err != nil {
		return nil, err
	}
	return &WasmtimeEngine{engine: engine, module: module, linker: linker}, nil
}

// Close releases the compiled module.
func (e *WasmtimeEngine) Close() error {
	e.module.Close()
	e.linker.Close()
	e.engine.Close()
	return nil
}

// Instantiate makes a new store and instance and runs _initialize, with an
// empty WASI configuration (no files, environment or arguments).
func (e *WasmtimeEngine) Instantiate() (*Wasmtime, error) {
	store := wasmtime.NewStore(e.engine)
	store.SetWasi(wasmtime.NewWasiConfig())
	inst, err := e.linker.Instantiate(store, e.module)
	if err != nil {
		store.Close()
		return nil, err
	}
	w := &Wasmtime{store: store}
	get := func(name string) *wasmtime.Func {
		f := inst.GetFunc(store, name)
		if f == nil && err == nil {
			err = fmt.Errorf("toolerr.wasm lacks the export %s", name)
		}
		return f
	}
	initialize := get("_initialize")
	w.fAlloc, w.fFree, w.fInvoke, w.fVersion = get("toolerr_alloc"), get("toolerr_free"), get("toolerr_invoke"), get("toolerr_abi_version")
	if ext := inst.GetExport(store, "memory"); ext != nil {
		w.mem = ext.Memory()
	}
	if err == nil && w.mem == nil {
		err = errors.New("toolerr.wasm exports no memory")
	}
	if err == nil {
		_, err = initialize.Call(store)
	}
	if err != nil {
		store.Close()
		return nil, err
	}
	return w, nil
}

// Wasmtime is one instance of toolerr.wasm under wasmtime-go. Not safe for
// concurrent use.
type Wasmtime struct {
	store                            *wasmtime.Store
	mem                              *wasmtime.Memory
	fAlloc, fFree, fInvoke, fVersion *wasmtime.Func
	buf                              reqBuf
}

var _ Target = (*Wasmtime)(nil)

// Name returns "wasmtime".
func (w *Wasmtime) Name() string { return "wasmtime" }

// Invoke runs req through toolerr_invoke.
func (w *Wasmtime) Invoke(req []byte) ([]byte, error) {
	return invokeWasm(w, &w.buf, req, uint32(len(req)))
}

// InvokeLen passes n as the length of req (a lying host, for boundary tests).
func (w *Wasmtime) InvokeLen(req []byte, n uint32) ([]byte, error) {
	return invokeWasm(w, &w.buf, req, n)
}

// ABIVersion calls toolerr_abi_version.
func (w *Wasmtime) ABIVersion() (uint32, error) {
	v, err := w.fVersion.Call(w.store)
	if err != nil {
		return 0, err
	}
	return uint32(v.(int32)), nil
}

// MemoryBytes is the size of the linear memory in bytes.
func (w *Wasmtime) MemoryBytes() int { return int(w.mem.DataSize(w.store)) }

// Close releases the store and its instance.
func (w *Wasmtime) Close() error {
	w.store.Close()
	return nil
}

func (w *Wasmtime) alloc(size int32) (int32, error) {
	v, err := w.fAlloc.Call(w.store, size)
	if err != nil {
		return 0, err
	}
	return v.(int32), nil
}

func (w *Wasmtime) free(ptr int32) error {
	_, err := w.fFree.Call(w.store, ptr)
	return err
}

func (w *Wasmtime) invoke(ptr, n int32) (int64, error) {
	v, err := w.fInvoke.Call(w.store, ptr, n)
	if err != nil {
		return 0, err
	}
	return v.(int64), nil
}

func (w *Wasmtime) memory() []byte { return w.mem.UnsafeData(w.store) }
