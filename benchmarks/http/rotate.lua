-- wrk script: each request takes a random "key path" line of the file given after "--", with the
-- method given after it (GET when none). The requests are built once, in init: building one per
-- request (wrk.format) doubled wrk's CPU per request, which the two-core machine's server then
-- lacked.
local requests = {}

init = function(args)
  local method = args[2] or "GET"
  for line in io.lines(args[1]) do
    local key, path = line:match("^(%S+) (%S+)$")
    if key then
      requests[#requests + 1] = wrk.format(method, path, { ["X-Service-Org-Api-Key"] = key })
    end
  end
  math.randomseed(os.time() + #requests)
end

request = function()
  return requests[math.random(#requests)]
end
