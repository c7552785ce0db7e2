//! Tests for connect_four (to be written).
