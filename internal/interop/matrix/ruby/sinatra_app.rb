# Sinatra as its README writes routes: content_type :json with to_json, and
# halt 404 for a missing item, which Sinatra's default not_found renders.
require 'sinatra/base'
require 'json'

ITEMS = [
  { id: '1', name: 'Blue Train', price: 56.99 },
  { id: '2', name: 'Jeru', price: 17.99 },
  { id: '3', name: 'Sarah Vaughan and Clifford Brown', price: 39.99 }
].freeze

class ItemsApp < Sinatra::Base
  set :bind, '127.0.0.1'
  set :port, Integer(ENV.fetch('PORT'))
  set :server, 'webrick'

  get '/items' do
    content_type :json
    ITEMS.to_json
  end

  get '/items/:id' do
    item = ITEMS.find { |i| i[:id] == params[:id] }
    halt 404 if item.nil?
    content_type :json
    item.to_json
  end

  run! if app_file == $PROGRAM_NAME
end
