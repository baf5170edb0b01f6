-- wrk script: each request takes a random "key path" line of the file given after "--", with the
-- method given after it (GET when none).
local targets = {}
local method = "GET"

init = function(args)
  for line in io.lines(args[1]) do
    local key, path = line:match("^(%S+) (%S+)$")
    if key then
      targets[#targets + 1] = { key, path }
    end
  end
  if args[2] then
    method = args[2]
  end
  math.randomseed(os.time() + #targets)
end

request = function()
  local t = targets[math.random(#targets)]
  return wrk.format(method, t[2], { ["X-Service-Org-Api-Key"] = t[1] })
end
