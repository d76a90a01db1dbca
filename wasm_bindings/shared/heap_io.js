// Prepended to each Embind module (--pre-js), so it runs inside the module's scope, where HEAPF32 is
// the current view of the heap (renewed when memory grows).
// A matrix leaves the heap through this one JS call from C++ (convert.cpp's matrix_to_js): building
// { rows, cols, data } with Embind property writes took several boundary crossings per matrix, which
// dominated small calls (a 16-token multi-head pass returns ten matrices).
// And the way in: the values (a typed or plain array) copied into the heap at `address`, when there
// are exactly `count` of them (false otherwise, and nothing is written).
Module['copyToHeap'] = (values, address, count) => {
  if (values.length !== count) return false;
  HEAPF32.set(values, address >>> 2);
  return true;
};
Module['matrixFromHeap'] = (rows, cols, address) => {
  const start = address >>> 2;
  return { rows, cols, data: HEAPF32.slice(start, start + rows * cols) };
};
// Or into the caller's Float32Array of rows × cols values (scaledDotProductAttention's `out`, checked
// in web/lib): no new array, which costs more than the copy (a fresh 64 KB array took ~0.03 ms in
// Chromium here, setting an existing one under 0.005 ms).
Module['matrixIntoArray'] = (rows, cols, address, array) => {
  const start = address >>> 2;
  array.set(HEAPF32.subarray(start, start + rows * cols));
  return { rows, cols, data: array };
};
// Bytes and token ids, for the GPT module: one copy each way, as for matrices.
Module['bytesToHeap'] = (bytes, address) => {
  HEAPU8.set(bytes, address);
};
Module['bytesFromHeap'] = (address, count) => HEAPU8.slice(address, address + count);
Module['intsToHeap'] = (ids, address, count) => {
  if (ids.length !== count) return false;
  HEAP32.set(ids, address >>> 2);
  return true;
};
Module['intsFromHeap'] = (address, count) => HEAP32.slice(address >>> 2, (address >>> 2) + count);
Module['floatsFromHeap'] = (address, count) => HEAPF32.slice(address >>> 2, (address >>> 2) + count);
