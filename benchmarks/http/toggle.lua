-- wrk script for writes that each change an agent: every request is a POST ".../disable" or
-- ".../enable" of an agent of the "key path" lines of the file given after "--" (path: the
-- agent's URL), so that it really changes the agent's status. The thread count follows the file
-- (it must be wrk's -t). Thread t of n takes the lines t, t + n, ... in turn; its first pass over
-- them disables each agent, the next enables it, and so on, so every agent starts ACTIVE (the
-- benchmark resets them before each run) and each request flips one. With many more agents per
-- thread than connections, a request is long answered when its agent comes round again. The
-- requests are built once, in init (see rotate.lua).
local counter = 0

setup = function(thread)
  thread:set("id", counter)
  counter = counter + 1
end

local disables = {}
local enables = {}
local next_index = 1
local pass = 0

init = function(args)
  local total = tonumber(args[2])
  local index = 0
  for line in io.lines(args[1]) do
    local key, path = line:match("^(%S+) (%S+)$")
    if key then
      if index % total == id then
        local headers = { ["X-Service-Org-Api-Key"] = key }
        disables[#disables + 1] = wrk.format("POST", path .. "/disable", headers)
        enables[#enables + 1] = wrk.format("POST", path .. "/enable", headers)
      end
      index = index + 1
    end
  end
end

request = function()
  local requests = (pass % 2 == 0) and disables or enables
  local found = requests[next_index]
  next_index = next_index + 1
  if next_index > #requests then
    next_index = 1
    pass = pass + 1
  end
  return found
end
