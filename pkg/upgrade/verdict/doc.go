// Package verdict is make upgrade-check's one reading of an Application
// and its one grade: what was read of it on each release (its render, its
// states, its status's fields, the commits pushed, its cascading deletion),
// and the verdict over that, SAFE, CHANGED, BROKEN or ERROR. The cell of one
// Application and the fleet both fill a Reading; Grade is the only place
// that says what BROKEN means.
//
// A part left nil on a Side was not asked on that release (the fleet asks
// no sync in its render tier, and never deletes on FROM); a part asked and
// not read says so in its Unread: the verdict could not tell past it, never
// "not found". Something found BROKEN stays BROKEN when another part could
// not be read.
package verdict
