// Wine 8 (Debian 12) lacks bcryptprimitives.dll, which Windows 10 has and which Rust's standard
// library imports for ProcessPrng (its random source). This stand-in, built with MinGW and put in
// the test Wine prefix only, answers from RtlGenRandom (advapi32's SystemFunction036). It is not
// shipped: it only lets the unmodified addon load under this Wine.
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T size) {
  while (size > 0) {
    ULONG chunk = size > 0x10000000 ? 0x10000000 : (ULONG)size;
    if (!SystemFunction036(data, chunk)) return FALSE;
    data += chunk;
    size -= chunk;
  }
  return TRUE;
}
