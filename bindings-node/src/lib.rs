//! N-API binding for acp-fs (placeholder until the binding lands).
