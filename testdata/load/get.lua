-- GETs the URL wrk was given, with $AUTH as the Authorization header
-- (PocketBase's listing, pocketbase.sh).
wrk.method = "GET"
wrk.headers["Authorization"] = os.getenv("AUTH")

-- report.lua, beside this script, prints the result line.
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "report.lua")
