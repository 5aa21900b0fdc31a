// Schema versions. The version lives in PRAGMA user_version; each migration
// moves the schema one version up inside one transaction, so a failed
// migration leaves the previous version intact.
#pragma once

#include <string>

namespace streamcheck::store {

class Database;

// The newest schema this build writes and reads.
inline constexpr int kSchemaVersion = 5;

// Stamped into PRAGMA application_id so a foreign SQLite file is recognised
// as not ours instead of being migrated ('SCHK').
inline constexpr int kApplicationId = 0x5343484b;

// Brings `db` from its current version up to `target` (tests stop early to
// build old databases). Fails, changing nothing, when the file is newer than
// this build or belongs to another application.
bool Migrate(Database& db, std::string* error, int target = kSchemaVersion);

// The file's schema version (0 for an empty file); -1, with a message for
// the user, when the file is newer than this build, belongs to another
// application, or cannot be read (corrupt, not SQLite). Reads only.
int CompatibleSchemaVersion(Database& db, std::string* error);

// The first table a database of `version` should have and lacks (another
// program dropped it), or "" when all are there.
std::string MissingTable(Database& db, int version);

// The version stored in the file (0 for an empty file), or -1 when unreadable.
int SchemaVersionOf(Database& db, std::string* error);

}  // namespace streamcheck::store
