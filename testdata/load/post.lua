-- Posts $BODY to the URL wrk was given.
wrk.method = "POST"
wrk.body = os.getenv("BODY")
wrk.headers["Content-Type"] = "application/json"

-- report.lua, beside this script, prints the result line.
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "report.lua")
