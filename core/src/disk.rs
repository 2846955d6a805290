//! std::fs storage (being written).

/// Placeholder until the disk backend lands.
pub struct DiskStorage;
