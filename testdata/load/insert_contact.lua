-- Inserts contacts with valid, distinct CPFs: each thread numbers its own
-- in one of 225 slots of 4,000,000 CPFs, drawn at random per thread, so
-- runs on the same data (KEEP=) rarely collide on "Register already used"
-- (run.sh seeds fresh data each time otherwise). With $PB set it posts
-- the same contacts to PocketBase's records API (pocketbase.sh), with
-- $AUTH as the Authorization header when set (a superuser's create),
-- without one when empty (an anonymous create).
local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
end

local n = 0
local slot = nil

local function cpf(num)
  local d = {}
  local s = string.format("%09d", num % 1000000000)
  for i = 1, 9 do d[i] = tonumber(s:sub(i, i)) end
  for k = 10, 11 do
    local sum = 0
    for i = 1, k - 1 do sum = sum + d[i] * (k + 1 - i) end
    d[k] = (sum * 10) % 11 % 10
  end
  return table.concat(d)
end

function request()
  if slot == nil then
    math.randomseed(os.time() * 7 + tid)
    slot = math.random(0, 224)
  end
  n = n + 1
  local register = cpf(100000000 + slot * 4000000 + n)
  if os.getenv("PB") then -- PocketBase's records API (pocketbase.sh)
    local body = string.format('{"name":"Carga %d","register":"%s"}', n, register)
    local headers = {["Content-Type"] = "application/json"}
    if (os.getenv("AUTH") or "") ~= "" then headers["Authorization"] = os.getenv("AUTH") end
    return wrk.format("POST", nil, headers, body)
  end
  local body = string.format('{"access_token":"%s","unit_token":"%s","type":"natural_person","register":"%s","fullName":"Carga %d"}',
    os.getenv("ACCESS"), os.getenv("UNIT"), register, n)
  return wrk.format("POST", nil, {["Content-Type"] = "application/json"}, body)
end

-- report.lua, beside this script, prints the result line.
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "report.lua")
