package build

// SetPageSize sets how many events a full change-feed page holds, and
// returns a function that restores it.
func SetPageSize(n int64) (restore func()) {
	old := pageSize
	pageSize = n
	return func() { pageSize = old }
}
